/**
 * Checks the worker runs before it locks the database or registers anything, so a setting that
 * cannot work fails at once as one line with the fix (exit 2) instead of a stack trace later: the
 * report directory must be writable (assertOutputFolder, src/util/path-checks.ts: the billing
 * report job writes there), and the metrics port must be bindable (src/worker/http-server.ts
 * turns EADDRINUSE/EACCES into a ConfigError).
 */
import { listenError } from '../util/listen-error.js';

/** The one-line error for a metrics port that cannot be bound. */
export function bindError(error: unknown, host: string, port: number): Error {
  return listenError(error, {
    host,
    port,
    portFlag: '--metrics-port',
    hostFlag: '--metrics-host',
    holder: 'another worker?',
  });
}

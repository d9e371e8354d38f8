/**
 * Structured logs (pino) on stderr, so stdout stays free for results (`--json`, reports).
 * Paths that could ever hold the key are redacted as a second line of defence; the first is that
 * no code puts the key into anything it logs.
 */
import { type Logger, pino } from 'pino';

export type { Logger };

export function createLogger(level = 'info', bindings: Record<string, unknown> = {}): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid, ...bindings },
      redact: {
        paths: ['apiKey', '*.apiKey', 'headers["x-service-key"]', '*.headers["x-service-key"]'],
        censor: '[redacted]',
      },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    pino.destination({ fd: 2, sync: true }),
  );
}

/** A logger that drops everything, for tests and library callers that pass none. */
export const silentLogger: Logger = pino({ level: 'silent' });

/**
 * Checks the worker runs before it locks the database or registers anything, so a setting that
 * cannot work fails at once as one line with the fix (exit 2) instead of a stack trace later:
 * the report directory must be writable (the billing report job writes there), and the metrics
 * port must be bindable (src/worker/http-server.ts turns EADDRINUSE/EACCES into a ConfigError).
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError, toError } from '../errors.js';
import { assertNotPseudoFs, fileInTheWay } from '../load/file/path-checks.js';

/**
 * A ConfigError naming `flag` unless `dir` is a writable directory, or could be created as one (its
 * nearest existing ancestor is a writable directory). Nothing is created here: the report job
 * creates the directory when it first has something to write.
 */
export function assertWritableDir(dir: string, flag: string): void {
  assertNotPseudoFs(dir, flag);
  const full = resolve(dir);
  const file = fileInTheWay(resolve(full, 'x'));
  if (file) {
    throw new ConfigError(flag, `${file} is a file, not a directory; point ${flag} at a directory`);
  }
  let existing = full;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  try {
    accessSync(existing, constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? toError(error).message;
    throw new ConfigError(
      flag,
      `cannot write to ${existing} (${code}); make it writable for this user or point ${flag} at a writable directory`,
    );
  }
}

/** The one-line error for a metrics port that cannot be bound. */
export function bindError(error: unknown, host: string, port: number): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    return new ConfigError(
      '--metrics-port',
      `${host}:${port} is already in use (another worker?); pick a free port with --metrics-port, or 0 for any free one`,
    );
  }
  if (code === 'EACCES') {
    return new ConfigError(
      '--metrics-port',
      `not allowed to listen on ${host}:${port}; use a port above 1023`,
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new ConfigError(
      '--metrics-host',
      `${host} is not an address of this machine; use 127.0.0.1 or 0.0.0.0`,
    );
  }
  return toError(error);
}

/**
 * How a writing command (sync, quarantine retry, state reset, compact, verify --repair, erase, demo)
 * holds the file's writer lock, and what it says while it waits for the file.
 */
import type { Logger } from '../log.js';
import { withWriterLock } from '../store/index.js';
import { formatDuration } from '../util/duration.js';
import { PROGRAM } from './command.js';

/**
 * `fn` holding the writer lock of `db` for `command`, waiting up to `waitMs` for another writer.
 * Once, when the file is found held: a line on a terminal; elsewhere only a debug log line
 * (`logger`, when the command has one): off a terminal the outcome speaks, and a refusal says how
 * long it waited.
 */
export function withCommandLock<T>(
  stderr: NodeJS.WritableStream & { readonly isTTY?: boolean },
  lock: { readonly db: string; readonly command: string; readonly waitMs: number; readonly logger?: Logger },
  fn: () => Promise<T>,
): Promise<T> {
  const waiting = `waiting up to ${formatDuration(lock.waitMs)} for it (--lock-wait)`;
  const onWait = (holder: string) => {
    if (stderr.isTTY === true) stderr.write(`${PROGRAM}: ${holder}; ${waiting}\n`);
    else lock.logger?.debug({ lock_wait_ms: lock.waitMs }, '%s; %s', holder, waiting);
  };
  return withWriterLock({ ...lock, onWait }, fn);
}

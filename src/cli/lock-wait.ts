/**
 * A writing command's hold on the file's writer lock, waiting up to `waitMs` for another writer. A
 * file found held is said once: a line on a terminal; elsewhere only a debug log line (with
 * `logger`), as off a terminal the outcome speaks, and a refusal says how long it waited.
 */
import type { Logger } from '../log.js';
import { withWriterLock } from '../store/index.js';
import { formatDuration } from '../util/duration.js';
import { type CommandIo, PROGRAM } from './command.js';

export function withCommandLock<T>(
  stderr: CommandIo['stderr'],
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

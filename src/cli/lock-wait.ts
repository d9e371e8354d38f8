/**
 * What a writing command (sync, quarantine retry, state reset, compact, verify --repair, demo) says
 * while it waits for the file.
 */
import type { Logger } from '../log.js';
import { formatDuration } from '../util/duration.js';
import { PROGRAM } from './command.js';

/**
 * The `onWait` of the writer lock: once, when the file is found held, a line on a terminal;
 * elsewhere only a debug log line (`logger`, when the command has one): off a terminal the
 * outcome speaks, and a refusal says how long it waited.
 */
export function lockWaitNotice(
  stderr: NodeJS.WritableStream & { readonly isTTY?: boolean },
  waitMs: number,
  logger?: Logger,
): (holder: string) => void {
  const waiting = `waiting up to ${formatDuration(waitMs)} for it (--lock-wait)`;
  return (holder) => {
    if (stderr.isTTY === true) stderr.write(`${PROGRAM}: ${holder}; ${waiting}\n`);
    else logger?.debug({ lock_wait_ms: waitMs }, '%s; %s', holder, waiting);
  };
}

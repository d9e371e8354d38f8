/**
 * The lock file's content and who may take it: the holder written into `<db>.lock` (created with
 * O_EXCL), read back, judged stale (see writer-lock.ts for the rules) and moved aside on take-over.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { DatabaseError, toError } from '../../errors.js';

export interface LockHolder {
  readonly token: string;
  readonly pid: number;
  readonly host: string;
  /** The command holding it: sync, worker, ... */
  readonly command: string;
  /** ISO 8601 */
  readonly since: string;
  /** The holder's start time in clock ticks after boot (/proc/<pid>/stat), null off Linux. */
  readonly start_ticks: number | null;
}

/** true when the file was created with our holder in it; false when it exists. */
export function createLockFile(path: string, holder: LockHolder): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    throw new DatabaseError(`cannot create the lock file ${path}: ${toError(error).message}`, {
      path,
      hint: 'make the directory of --db (TSYNC_DB) writable for this user, or point --db at a writable place',
      cause: error,
    });
  }
  try {
    writeSync(fd, `${JSON.stringify(holder)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The holder, undefined when unreadable or half-written, 'gone' when there is no file. */
export function readHolder(path: string): LockHolder | undefined | 'gone' {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockHolder>;
    const valid = typeof parsed.pid === 'number' && typeof parsed.host === 'string';
    return valid && typeof parsed.token === 'string' ? (parsed as LockHolder) : undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : undefined;
  }
}

/** Why the lock is stale, or undefined while its holder may write; `heldHere`: this process holds it now. */
export function staleness(
  path: string,
  holder: LockHolder | undefined,
  staleAfterMs: number,
  heldHere: boolean,
): string | undefined {
  const age = ageMs(path);
  if (holder === undefined) return age > 5_000 ? 'unreadable lock file' : undefined;
  if (holder.host === hostname()) {
    if (holder.pid === process.pid) {
      if (heldHere) return undefined;
      return holder.start_ticks === startTicks(process.pid) ? undefined : 'held by a past life of this pid';
    }
    if (!pidAlive(holder.pid)) return `pid ${holder.pid} is gone`;
    const ticks = startTicks(holder.pid);
    if (holder.start_ticks !== null && ticks !== null && ticks !== holder.start_ticks)
      return `pid ${holder.pid} now belongs to another process`;
    return undefined;
  }
  return age > staleAfterMs ? `not refreshed for ${Math.round(age / 1000)} s` : undefined;
}

/** Moves the stale file aside, putting it back if it is not the one judged stale (a racer took over). */
export function takeOver(path: string, judged: LockHolder | undefined): boolean {
  const aside = `${path}.stale-${process.pid}-${randomUUID().slice(0, 8)}`;
  try {
    renameSync(path, aside);
  } catch {
    return false;
  }
  const moved = readHolder(aside);
  const same = moved !== 'gone' && moved?.token === judged?.token;
  try {
    if (!same) renameSync(aside, path);
    else unlinkSync(aside);
  } catch {
    // Best effort: the next attempt reads whatever is there now.
  }
  return same;
}

export function removeIfOurs(path: string, token: string): void {
  const current = readHolder(path);
  if (current === 'gone' || current?.token !== token) return;
  try {
    unlinkSync(path);
  } catch {}
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** Whether process `pid` exists (EPERM: it does, another user's). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Field 22 of /proc/<pid>/stat (after the parenthesised command name), or null. */
export function startTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const value = Number(fields[19]);
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * One writer per DuckDB file (docs/decisions/0015-one-writer-per-file.md): `<db>.lock`, created with
 * O_EXCL and holding who writes. A second writer is refused with the holder's pid, at once or after
 * waiting (`waitForWriterLock`, --lock-wait). A worker holds it while a run writes, and
 * `<db>.worker.lock` (`role: 'worker'`) for as long as it lives. A stale lock is taken over: on the same
 * host, its pid is gone or another process's (its start time in /proc differs); from another host, it
 * went untouched for `staleAfterMs` (the holder touches it every `heartbeatMs`).
 */
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  openSync,
  readFileSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseError, toError } from '../../errors.js';
import { type Logger, silentLogger } from '../../log.js';
import { formatDuration } from '../../util/duration.js';
import { assertDatabasePath } from '../../util/path-checks.js';
import { makePrivateDir, pidAlive } from './open-instance.js';

const LOCK_HEARTBEAT_MS = 10_000;
const LOCK_STALE_AFTER_MS = 30_000;

export interface WriterLock {
  readonly path: string;
  readonly holder: LockHolder;
  /** Stops the heartbeat and removes the file if it is still ours. Idempotent. */
  release(): void;
}

export interface WriterLockOptions {
  readonly db: string;
  readonly command: string;
  /** 'writer' (default): `<db>.lock`, held while writing; 'worker': `<db>.worker.lock`, held by a worker for its life. */
  readonly role?: LockRole;
  readonly logger?: Logger;
  /** Called once when the heartbeat finds the file gone or someone else's: stop writing. */
  readonly onLost?: (reason: string) => void;
  readonly heartbeatMs?: number;
  readonly staleAfterMs?: number;
}

/** Locks held by this process, so a second acquisition in one process (tests) is refused. */
const heldHere = new Set<string>();

export type LockRole = 'writer' | 'worker';

export function writerLockPath(db: string, role: LockRole = 'writer'): string {
  return role === 'worker' ? `${resolve(db)}.worker.lock` : `${resolve(db)}.lock`;
}

export function acquireWriterLock(options: WriterLockOptions): WriterLock {
  const db = resolve(options.db);
  const role = options.role ?? 'writer';
  const path = writerLockPath(db, role);
  const logger = options.logger ?? silentLogger;
  assertDatabasePath(db);
  const madeDir = makePrivateDir(dirname(db));
  const holder: LockHolder = {
    token: randomUUID(),
    pid: process.pid,
    host: hostname(),
    command: options.command,
    since: new Date().toISOString(),
    start_ticks: startTicks(process.pid),
  };
  for (let attempt = 0; ; attempt += 1) {
    if (createLockFile(path, holder)) break;
    const current = readHolder(path);
    if (current === 'gone') continue;
    const stale = staleness(path, current, options.staleAfterMs ?? LOCK_STALE_AFTER_MS, heldHere.has(path));
    if (stale === undefined || attempt >= 3) refuse(db, path, current, role);
    if (takeOver(path, current)) {
      logger.info(
        { lock: path, stale_pid: current?.pid ?? null, why: stale },
        'took over a stale database lock',
      );
    }
  }
  heldHere.add(path);
  const onExit = () => removeIfOurs(path, holder.token);
  process.on('exit', onExit);

  let lost = false;
  const timer = setInterval(() => {
    const current = readHolder(path);
    if (current !== 'gone' && current?.token === holder.token) {
      try {
        const now = new Date();
        utimesSync(path, now, now);
      } catch (error) {
        logger.warn({ err: toError(error), lock: path }, 'could not refresh the database lock');
      }
      return;
    }
    if (lost) return;
    lost = true;
    clearInterval(timer);
    options.onLost?.(`the lock ${path} was removed or taken by another process`);
  }, options.heartbeatMs ?? LOCK_HEARTBEAT_MS);
  timer.unref();

  let released = false;
  return {
    path,
    holder,
    release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      process.off('exit', onExit);
      heldHere.delete(path);
      removeIfOurs(path, holder.token);
      // A folder made for a file that was never written (a refused key) goes with the lock.
      if (madeDir !== undefined) removeEmptyDirs(dirname(db), madeDir);
    },
  };
}

/** Removes `dir`, then its parents up to and including `top`, while each is empty. */
function removeEmptyDirs(dir: string, top: string): void {
  for (let current = dir; ; current = dirname(current)) {
    try {
      rmdirSync(current);
    } catch {
      return; // not empty (the file was written), or already gone
    }
    if (current === top || dirname(current) === current) return;
  }
}

function refuse(db: string, path: string, holder: LockHolder | undefined, role: LockRole): never {
  const who = holder
    ? `pid ${holder.pid} (transcript-sync ${holder.command}) on host ${holder.host}, since ${holder.since}`
    : 'another process';
  if (role === 'worker') {
    throw new DatabaseError(`${db} already has a worker: ${who}`, {
      path: db,
      hint: `run one worker per file: stop that one, or point --db at another file; a dead worker's lock (${path}) is taken over automatically`,
    });
  }
  throw new DatabaseError(`${db} is being written by ${who}`, {
    path: db,
    retryable: true,
    busy: true,
    hint: `stop that process or wait for it to finish, or point --db at another file; a dead holder's lock (${path}) is taken over automatically`,
  });
}

export interface LockWaitOptions {
  /** ms to wait for a lock another writer holds, asking again every so often (--lock-wait); 0: refuse at once. */
  readonly waitMs: number;
  /** Called once, when the lock is found held and the wait starts, with who holds it. */
  readonly onWait?: (holder: string) => void;
  /** Ends the wait early, throwing the signal's reason (a worker shutting down). */
  readonly signal?: AbortSignal;
}

/** First pause between two asks for a held lock, ms; doubles up to LOCK_POLL_MAX_MS. */
const LOCK_POLL_START_MS = 100;
const LOCK_POLL_MAX_MS = 1_000;

/** The writer lock, waiting up to `waitMs` for another writer (the refusal says how long it waited). */
export async function waitForWriterLock(options: WriterLockOptions & LockWaitOptions): Promise<WriterLock> {
  const deadline = Date.now() + options.waitMs;
  let pause = LOCK_POLL_START_MS;
  for (let asked = 0; ; asked += 1) {
    options.signal?.throwIfAborted();
    try {
      return acquireWriterLock(options);
    } catch (error) {
      if (!(error instanceof DatabaseError && error.busy)) throw error;
      const left = deadline - Date.now();
      if (left <= 0) throw asked === 0 ? error : waitedError(error, options.waitMs);
      if (asked === 0) options.onWait?.(error.message);
      await sleep(Math.min(pause, left), undefined, options.signal ? { signal: options.signal } : {}).catch(
        () => options.signal?.throwIfAborted(),
      );
      pause = Math.min(pause * 2, LOCK_POLL_MAX_MS);
    }
  }
}

function waitedError(error: DatabaseError, waitMs: number): DatabaseError {
  return new DatabaseError(`${error.message} (waited ${formatDuration(waitMs)}, --lock-wait)`, {
    path: error.path,
    retryable: true,
    busy: true,
    ...(error.hint ? { hint: error.hint } : {}),
  });
}

/** Runs `fn` holding the file's writer lock, waiting for another writer up to `waitMs` (default 0). */
export async function withWriterLock<T>(
  options: Omit<WriterLockOptions, 'onLost'> & Partial<LockWaitOptions>,
  fn: () => Promise<T>,
): Promise<T> {
  const lock = await waitForWriterLock({ ...options, waitMs: options.waitMs ?? 0 });
  try {
    return await fn();
  } finally {
    lock.release();
  }
}

/** The lock file's content: who holds it, as written into `<db>.lock` (O_EXCL) and read back. */
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
function createLockFile(path: string, holder: LockHolder): boolean {
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
function readHolder(path: string): LockHolder | undefined | 'gone' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string' || typeof parsed.token !== 'string')
      return undefined;
    return parsed as LockHolder;
  } catch {
    return undefined;
  }
}

/** Why the lock is stale, or undefined while its holder may write; `heldHere`: this process holds it now. */
function staleness(
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
function takeOver(path: string, judged: LockHolder | undefined): boolean {
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

function removeIfOurs(path: string, token: string): void {
  const current = readHolder(path);
  if (current === 'gone' || current?.token !== token) return;
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** Field 22 of /proc/<pid>/stat (after the parenthesised command name), or null. */
function startTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const value = Number(fields[19]);
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

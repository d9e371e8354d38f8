/**
 * One writer per DuckDB file (docs/decisions/0015-one-writer-per-file.md): `<db>.lock`, created with
 * O_EXCL and holding who writes. A second writer is refused with the holder's pid, at once or after
 * waiting (`waitForWriterLock`, --lock-wait). A worker holds it while a run writes, and
 * `<db>.worker.lock` (`role: 'worker'`) for as long as it lives. A stale lock is taken over: on the same
 * host, its pid is gone or another process's (its start time in /proc differs); from another host, it
 * went untouched for `staleAfterMs` (the holder touches it every `heartbeatMs`). A writer waiting
 * for `<db>.lock` announces itself in `<db>.lock.waiting`, so that a worker, whose runs take the
 * lock back to back, lets it go first (`yields`).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, rmdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import { DatabaseError, toError } from '../../errors.js';
import { type Logger, silentLogger } from '../../log.js';
import { formatDuration } from '../../util/duration.js';
import { assertDatabasePath } from '../../util/path-checks.js';
import { cleanedOnSignal } from '../../util/removed-on-signal.js';
import { sleep } from '../../util/sleep.js';
import {
  createLockFile,
  type LockHolder,
  readHolder,
  removeIfOurs,
  staleness,
  startTicks,
  takeOver,
} from './lock-file.js';
import { assertWriterCanEnter, makePrivateDir } from './open-instance.js';

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
  assertWriterCanEnter(db);
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
  // A signal nothing else handles ends the process without an 'exit' event.
  const forgetOnSignal = cleanedOnSignal(onExit);

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
      forgetOnSignal();
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

/** Who holds `db`'s lock of `role` as its file says; undefined when none does or it cannot be read. */
export function lockHolder(db: string, role: LockRole = 'writer'): LockHolder | undefined {
  const holder = readHolder(writerLockPath(db, role));
  return holder === 'gone' ? undefined : holder;
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

/** Where a writer waiting for `db`'s writer lock announces itself, holding its token. */
export function waitingMarkerPath(db: string): string {
  return `${resolve(db)}.lock.waiting`;
}

export interface LockWaitOptions {
  /** ms to wait for a lock another writer holds, asking again every so often (--lock-wait); 0: refuse at once. */
  readonly waitMs: number;
  /** Called once, when the lock is found held and the wait starts, with who holds it. */
  readonly onWait?: (holder: string) => void;
  /** Ends the wait early, throwing the signal's reason (a worker shutting down). */
  readonly signal?: AbortSignal;
  /**
   * A worker's run: it lets a writer announced in waitingMarkerPath go first (up to YIELD_MAX_MS) and
   * announces nothing itself. Any other writer announces itself there while it waits.
   */
  readonly yields?: boolean;
}

/** First pause between two asks for a held lock, ms; doubles up to LOCK_POLL_MAX_MS. */
const LOCK_POLL_START_MS = 100;
const LOCK_POLL_MAX_MS = 1_000;

/** The writer lock, waiting up to `waitMs` for another writer (the refusal says how long it waited). */
export async function waitForWriterLock(options: WriterLockOptions & LockWaitOptions): Promise<WriterLock> {
  if (options.yields) await yieldToWaiting(waitingMarkerPath(options.db), options.signal);
  const deadline = Date.now() + options.waitMs;
  const marker = options.yields ? undefined : { path: waitingMarkerPath(options.db), token: randomUUID() };
  const unannounce = () => marker && removeMarkerIfOurs(marker.path, marker.token);
  let pause = LOCK_POLL_START_MS;
  try {
    for (let asked = 0; ; asked += 1) {
      options.signal?.throwIfAborted();
      try {
        return acquireWriterLock(options);
      } catch (error) {
        if (!(error instanceof DatabaseError && error.busy)) throw error;
        const left = deadline - Date.now();
        if (left <= 0) throw asked === 0 ? error : waitedError(error, options.waitMs);
        if (asked === 0) {
          options.onWait?.(error.message);
          process.on('exit', unannounce);
        }
        if (marker) announce(marker.path, marker.token);
        await sleep(Math.min(pause, left), options.signal);
        pause = Math.min(pause * 2, LOCK_POLL_MAX_MS);
      }
    }
  } finally {
    process.off('exit', unannounce);
    unannounce();
  }
}

/** ms a waiting marker counts after it was last written: a waiter rewrites it at each ask. */
const WAITING_FRESH_MS = 3 * LOCK_POLL_MAX_MS;
/** Most ms a worker's run lets waiting writers go first, so a waiter that never gets the lock holds it up no longer. */
const YIELD_MAX_MS = 5 * LOCK_POLL_MAX_MS;
/** Pause between two looks at the waiting marker while a worker yields, ms. */
const YIELD_POLL_MS = 50;

/** Waits while a fresh waiting marker says another writer asks for the lock, up to YIELD_MAX_MS. */
async function yieldToWaiting(marker: string, signal: AbortSignal | undefined): Promise<void> {
  const until = Date.now() + YIELD_MAX_MS;
  while (Date.now() < until && writtenWithin(marker, WAITING_FRESH_MS)) await sleep(YIELD_POLL_MS, signal);
}

function writtenWithin(path: string, ms: number): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < ms;
  } catch {
    return false;
  }
}

/** Writes the marker, never failing: a folder this writer may not write leaves the worker unaware. */
function announce(path: string, token: string): void {
  try {
    writeFileSync(path, token, { mode: 0o600 });
  } catch {}
}

function removeMarkerIfOurs(path: string, token: string): void {
  try {
    if (readFileSync(path, 'utf8') === token) rmSync(path, { force: true });
  } catch {}
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

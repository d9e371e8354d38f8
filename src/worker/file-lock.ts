/**
 * One worker process per DuckDB file, across hosts: a Redis key `${prefix}:lock:${sha1(path)}` set
 * with NX and a 30 s expiry, holding a random token and who holds it. The holder renews it every
 * 10 s; a holder that dies without releasing it loses it within 30 s. A holder on this host whose
 * process no longer exists (a worker killed with SIGKILL, or the previous life of a restarted
 * container, which gets the same pid) is taken over at once instead.
 */
import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { Redis } from 'ioredis';
import { DatabaseError, toError } from '../errors.js';
import type { Logger } from '../log.js';

/** ms */
export const LOCK_TTL_MS = 30_000;
/** ms */
export const LOCK_RENEW_MS = 10_000;

// Each script acts only when the key still holds our exact value, so a lock that expired and was
// taken by another worker is never extended or deleted by us.
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;
const REPLACE = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 else return 0 end`;

export interface LockHolder {
  readonly token: string;
  readonly pid: number;
  readonly host: string;
  /** ISO 8601 */
  readonly since: string;
  readonly db: string;
}

export interface FileLock {
  readonly key: string;
  readonly holder: LockHolder;
  /** Stops renewing and deletes the key if it is still ours. Idempotent. */
  release(): Promise<void>;
}

export interface FileLockOptions {
  readonly redis: Redis;
  readonly prefix: string;
  readonly db: string;
  readonly logger: Logger;
  /** Called once when a renewal finds the key gone or taken: the worker must stop writing. */
  readonly onLost: (reason: string) => void;
  /** ms */
  readonly ttlMs?: number;
  /** ms */
  readonly renewMs?: number;
}

export function lockKey(prefix: string, db: string): string {
  return `${prefix}:lock:${createHash('sha1').update(resolve(db)).digest('hex')}`;
}

export async function acquireFileLock(options: FileLockOptions): Promise<FileLock> {
  const { redis, logger } = options;
  const ttl = options.ttlMs ?? LOCK_TTL_MS;
  const db = resolve(options.db);
  const key = lockKey(options.prefix, db);
  const holder: LockHolder = {
    token: randomUUID(),
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    db,
  };
  const value = JSON.stringify(holder);
  if ((await redis.set(key, value, 'PX', ttl, 'NX')) !== 'OK')
    await takeOverOrRefuse(redis, key, value, ttl, db, logger);

  let lost = false;
  const timer = setInterval(() => {
    redis.eval(RENEW, 1, key, value, ttl).then(
      (renewed) => {
        if (renewed === 1 || lost) return;
        lost = true;
        clearInterval(timer);
        options.onLost(`the lock on ${db} expired or was taken by another worker`);
      },
      (error) => logger.warn({ err: toError(error), key }, 'could not renew the database lock; retrying'),
    );
  }, options.renewMs ?? LOCK_RENEW_MS);
  timer.unref();

  let released = false;
  return {
    key,
    holder,
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      try {
        await redis.eval(RELEASE, 1, key, value);
      } catch (error) {
        logger.warn(
          { err: toError(error), key },
          `could not release the database lock; it expires within ${ttl} ms`,
        );
      }
    },
  };
}

async function takeOverOrRefuse(
  redis: Redis,
  key: string,
  value: string,
  ttl: number,
  db: string,
  logger: Logger,
) {
  const current = await redis.get(key);
  if (current === null) {
    // Released between our SET and GET: one more try, then report whoever won.
    if ((await redis.set(key, value, 'PX', ttl, 'NX')) === 'OK') return;
    return refuse(db, await redis.get(key));
  }
  const other = parseHolder(current);
  if (other && holderIsDeadHere(other) && (await redis.eval(REPLACE, 1, key, current, value, ttl)) === 1) {
    logger.warn(
      { pid: other.pid, host: other.host, since: other.since },
      'took over the database lock of a worker that no longer runs',
    );
    return;
  }
  return refuse(db, current);
}

function refuse(db: string, current: string | null): never {
  const other = current === null ? undefined : parseHolder(current);
  const who = other ? `pid ${other.pid} on host ${other.host}, since ${other.since}` : 'another process';
  throw new DatabaseError(`${db} is already used by a running worker (${who})`, db, false, true, {
    hint: `stop that worker or point this one at another --db; a dead holder's lock expires within ${Math.round(LOCK_TTL_MS / 1000)} s`,
  });
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string') return undefined;
    return parsed as LockHolder;
  } catch {
    return undefined;
  }
}

/**
 * True only when we can be sure: same host, and that pid is gone, or is ours but the lock is older
 * than this process (a past life of a restarted container; a lock taken by this very process,
 * as a second worker in one test process would, is refused).
 */
function holderIsDeadHere(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return false;
  if (holder.pid === process.pid) {
    const processStart = Date.now() - process.uptime() * 1_000;
    return Date.parse(holder.since) < processStart;
  }
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

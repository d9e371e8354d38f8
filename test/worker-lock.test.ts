/** The Redis lock that keeps a DuckDB file to one worker process. */
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DatabaseError } from '../src/errors.js';
import { silentLogger } from '../src/log.js';
import { acquireFileLock, type FileLockOptions, lockKey } from '../src/worker/file-lock.js';
import { uniquePrefix } from './helpers/redis.js';
import { tempDir } from './helpers/tmp.js';
import { onCleanup, testRedis } from './helpers/worker.js';

function setup(overrides: Partial<FileLockOptions> = {}) {
  const prefix = uniquePrefix('lock');
  const redis = testRedis(prefix);
  const db = join(tempDir(), 'transcripts.duckdb');
  const lost: string[] = [];
  const options: FileLockOptions = {
    redis,
    prefix,
    db,
    logger: silentLogger,
    onLost: (r) => lost.push(r),
    ...overrides,
  };
  const acquire = async (more: Partial<FileLockOptions> = {}) => {
    const lock = await acquireFileLock({ ...options, ...more });
    onCleanup(() => lock.release());
    return lock;
  };
  return { prefix, redis, db, lost, acquire, key: lockKey(prefix, db) };
}

function holderValue(pid: number, host: string, db: string): string {
  return JSON.stringify({ token: 'other', pid, host, since: '2026-01-01T00:00:00.000Z', db });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('database file lock', () => {
  it('refuses a second holder of the same file, naming the file and the holder', async () => {
    const { acquire, db } = setup();
    await acquire();
    const second = acquire();
    await expect(second).rejects.toBeInstanceOf(DatabaseError);
    await expect(second).rejects.toThrow(
      `${db} is already used by a running worker (pid ${process.pid} on host ${hostname()}`,
    );
  });

  it('the same file under another relative spelling is the same lock', async () => {
    const { prefix, db } = setup();
    expect(lockKey(prefix, join(db, '..', 'x', '..', 'transcripts.duckdb'))).toBe(lockKey(prefix, db));
  });

  it('can be taken again once released, and release deletes only our own key', async () => {
    const { acquire, redis, key } = setup();
    const first = await acquire();
    await first.release();
    expect(await redis.exists(key)).toBe(0);
    const second = await acquire();
    await first.release(); // a second release of a released lock must not delete the new holder's key
    expect(JSON.parse((await redis.get(key)) ?? '{}').token).toBe(second.holder.token);
  });

  it('takes over at once a lock whose holder process on this host is gone', async () => {
    const { acquire, redis, key, db } = setup();
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    await redis.set(key, holderValue(dead, hostname(), db), 'PX', 30_000);
    const lock = await acquire();
    expect(JSON.parse((await redis.get(key)) ?? '{}').token).toBe(lock.holder.token);
  });

  it('refuses while a holder on another host lives, and succeeds once its lock expires', async () => {
    const { acquire, redis, key, db } = setup();
    await redis.set(key, holderValue(1234, 'elsewhere', db), 'PX', 300);
    await expect(acquire()).rejects.toThrow(/pid 1234 on host elsewhere/);
    await sleep(400);
    await expect(acquire()).resolves.toBeDefined();
  });

  it('renewal keeps the lock past its time to live while the holder lives', async () => {
    const { acquire, redis, key } = setup();
    await acquire({ ttlMs: 300, renewMs: 100 });
    await sleep(900);
    expect(await redis.exists(key)).toBe(1);
  });

  it('reports a lock lost to expiry or another holder', async () => {
    const { acquire, redis, key, lost } = setup();
    await acquire({ ttlMs: 10_000, renewMs: 50 });
    await redis.set(key, holderValue(1, 'thief', 'x'));
    for (let i = 0; i < 40 && lost.length === 0; i += 1) await sleep(50);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatch(/expired or was taken/);
  });
});

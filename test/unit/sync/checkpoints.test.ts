/** One contract, two stores: DuckDB (in the rows' transaction) and Redis (after the commit). */
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { openWriter } from '../../../src/store/open-file.js';
import {
  DuckDbCheckpointStore,
  resolveCheckpoint,
  saveCheckpoint,
} from '../../../src/sync/checkpoints/duckdb-store.js';
import {
  checkpointKey,
  type RedisCheckpointOptions,
  RedisCheckpointStore,
} from '../../../src/sync/checkpoints/redis-store.js';
import type { Checkpoint, CheckpointStore } from '../../../src/sync/types.js';
import { migratedDb } from '../../helpers/migrated-db.js';
import { redisUrl, uniquePrefix } from '../../helpers/redis.js';
import { startOwnRedis } from '../../helpers/redis-server.js';

const checkpoint: Checkpoint = {
  watermark: '2026-11-20T10:00:00.000Z',
  pending: ['a', 'b'],
  slice: { after: null, before: '2026-11-20T10:00:00.000Z' },
  lastRun: null,
};

interface Harness {
  store: CheckpointStore;
  /** The phase in which this store writes. */
  writes: 'in-transaction' | 'after-commit';
  close(): Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function duckdbHarness(): Promise<Harness> {
  const db = await openWriter(await migratedDb('cp.duckdb'));
  return { store: new DuckDbCheckpointStore(db), writes: 'in-transaction', close: () => db.close() };
}

async function redisHarness(): Promise<Harness> {
  const prefix = uniquePrefix('checkpoints');
  const store = new RedisCheckpointStore(redisUrl(), prefix);
  return {
    store,
    writes: 'after-commit',
    close: async () => {
      await store.close();
      const redis = new Redis(redisUrl());
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    },
  };
}

describe.each([
  ['duckdb', duckdbHarness],
  ['redis', redisHarness],
] as const)('%s checkpoint store', (_name, make) => {
  it('has no checkpoint for a kind never synced', async () => {
    const h = await make();
    cleanups.push(h.close);
    expect(await h.store.load('live')).toBeNull();
  });

  it('returns what was saved, per kind', async () => {
    const h = await make();
    cleanups.push(h.close);
    await h.store.save('live', checkpoint);
    expect(await h.store.load('live')).toEqual(checkpoint);
    expect(await h.store.load('pre-recorded')).toBeNull();
  });

  it('writes only in its own phase', async () => {
    const h = await make();
    cleanups.push(h.close);
    expect(h.store.phase).toBe(h.writes);
    const other = h.writes === 'in-transaction' ? 'after-commit' : 'in-transaction';
    await saveCheckpoint([h.store], 'live', checkpoint, other);
    expect(await h.store.load('live')).toBeNull();
    await saveCheckpoint([h.store], 'live', checkpoint, h.writes);
    expect(await h.store.load('live')).toEqual(checkpoint);
  });

  it('overwrites the previous checkpoint', async () => {
    const h = await make();
    cleanups.push(h.close);
    await h.store.save('live', checkpoint);
    const next = { ...checkpoint, watermark: '2026-11-21T00:00:00.000Z', pending: [] };
    await h.store.save('live', next);
    expect(await h.store.load('live')).toEqual(next);
  });
});

/** A fresh file and a Redis store under a unique prefix, both cleaned up after the test. */
async function fileAndRedis(name: string) {
  const db = await openWriter(await migratedDb(`${name}.duckdb`));
  const prefix = uniquePrefix(name);
  const redis = new RedisCheckpointStore(redisUrl(), prefix);
  cleanups.push(async () => {
    await redis.close();
    const client = new Redis(redisUrl());
    await client.del(checkpointKey(prefix, 'live'));
    client.disconnect();
    await db.close();
  });
  return { db, redis, local: new DuckDbCheckpointStore(db) };
}

describe('choosing the checkpoint a run starts from', () => {
  it('uses what the database holds when the Redis key is missing', async () => {
    const { db, redis, local } = await fileAndRedis('fallback');
    await local.save('live', checkpoint);
    expect((await resolveCheckpoint(db, redis, 'live')).watermark).toBe(checkpoint.watermark);
  });

  it('takes the earlier watermark when the file is behind Redis (a restored backup)', async () => {
    const { db, redis, local } = await fileAndRedis('behind');
    await local.save('live', checkpoint);
    await redis.save('live', { ...checkpoint, watermark: '2026-11-22T00:00:00.000Z' });
    expect((await resolveCheckpoint(db, redis, 'live')).watermark).toBe(checkpoint.watermark);
  });

  it('ignores a Redis checkpoint for a file that holds no jobs (a new file)', async () => {
    const { db, redis } = await fileAndRedis('newfile');
    await redis.save('live', checkpoint);
    expect((await resolveCheckpoint(db, redis, 'live')).watermark).toBeNull();
  });
});

describe('saving a checkpoint while Redis is away', () => {
  /** A store on a Redis of the test's own that has saved once (it is connected), and a reader. */
  async function ownStore(options: RedisCheckpointOptions = {}) {
    const own = await startOwnRedis();
    const store = new RedisCheckpointStore(own.url, 'outage', options);
    cleanups.push(() => store.close());
    await store.save('live', checkpoint);
    const saved = async () => {
      const client = new Redis(own.url);
      const value = await client.get(checkpointKey('outage', 'live'));
      client.disconnect();
      return value === null ? null : (JSON.parse(value) as Checkpoint);
    };
    return { own, store, saved };
  }
  const next: Checkpoint = { ...checkpoint, watermark: '2026-11-21T10:00:00.000Z' };

  it('waits for Redis to come back, even empty, and saves then', async () => {
    const { own, store, saved } = await ownStore();
    await own.stop();
    const saving = store.save('live', next);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await own.start();
    await saving;
    expect(await saved()).toEqual(next);
  });

  it('fails at once when a Redis that answers refuses the write', async () => {
    const { own, store } = await ownStore();
    const admin = new Redis(own.url);
    cleanups.push(async () => admin.disconnect());
    // Out of memory with nothing to evict: every write is refused with an error reply.
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await admin.config('SET', 'maxmemory', '1');
    const outcome = await Promise.race([
      store.save('live', next).then(
        () => 'saved',
        (error: unknown) => String(error),
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5_000)),
    ]);
    expect(outcome).toMatch(/Redis is unreachable or refused the checkpoint \(OOM/);
  });

  it('fails with a RedisError once its wait has passed', async () => {
    const { own, store } = await ownStore({ saveWaitMs: 500 });
    await own.stop();
    await expect(store.save('live', next)).rejects.toThrow(/Redis is unreachable/);
  });

  it('ends its wait with the reason of the signal', async () => {
    const stop = new AbortController();
    const { own, store } = await ownStore({ signal: stop.signal });
    await own.stop();
    const saving = store.save('live', next);
    stop.abort(new Error('stopping'));
    await expect(saving).rejects.toThrow('stopping');
  });
});

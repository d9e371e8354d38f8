/**
 * `enqueue --wait` against a real Redis when nothing runs its jobs: no worker on the prefix, or a
 * worker that never takes the job before --timeout. Either way it says so and leaves no job behind.
 * The worker running the jobs is worker.test.ts's.
 */
import { Worker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { bullConnection } from '../../../src/worker/connection.js';
import { createSyncQueue, SYNC_QUEUE } from '../../../src/worker/queue.js';
import { onCleanup } from '../../helpers/cleanup.js';
import { runMain } from '../../helpers/cli.js';
import { redisUrl, uniquePrefix } from '../../helpers/redis.js';
import { testRedis } from '../../helpers/worker.js';

/** The jobs of every state under `prefix`'s sync queue. */
async function jobsLeft(prefix: string): Promise<number> {
  const queue = createSyncQueue(redisUrl(), prefix);
  try {
    const counts = await queue.getJobCounts();
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  } finally {
    await queue.close();
  }
}

describe('enqueue --wait with nothing to run its jobs', () => {
  it('without a worker on the prefix: exit 1 at once, one line naming the fix, no job queued', async () => {
    const prefix = uniquePrefix('enqueue');
    testRedis(prefix);
    const result = await runMain(['enqueue', '--wait', '--kind', 'live'], {
      REDIS_URL: redisUrl(),
      TSYNC_REDIS_PREFIX: prefix,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    // Prefixed as every error line of the program is.
    expect(lines[0]).toMatch(/^transcript-sync: no worker is listening/);
    expect(lines[0]).toContain(prefix);
    expect(lines[0]).toMatch(/start `transcript-sync worker` with the same --redis-prefix and REDIS_URL/);
    expect(await jobsLeft(prefix)).toBe(0);
  });

  it('a worker that never takes the job: at --timeout the job it queued is removed', async () => {
    const prefix = uniquePrefix('enqueue');
    testRedis(prefix);
    // Listed among the queue's workers (a named connection), but never fetches a job.
    const idle = new Worker(SYNC_QUEUE, null, {
      connection: bullConnection(redisUrl()),
      prefix,
      name: 'idle',
      autorun: false,
    });
    onCleanup(() => idle.close());
    await idle.waitUntilReady();

    const result = await runMain(['enqueue', '--wait', '--kind', 'live', '--timeout', '1s', '--json'], {
      REDIS_URL: redisUrl(),
      TSYNC_REDIS_PREFIX: prefix,
    });
    expect(result.code).toBe(1);
    const line = JSON.parse(result.stdout.trim());
    expect(line).toMatchObject({ kind: 'live', state: 'removed', reason: 'timeout' });
    expect(await jobsLeft(prefix)).toBe(0);
  });
});

describe('enqueue without --wait and no worker', () => {
  it('queues the job for a later worker and exits 0', async () => {
    const prefix = uniquePrefix('enqueue');
    testRedis(prefix);
    const result = await runMain(['enqueue', '--kind', 'live'], {
      REDIS_URL: redisUrl(),
      TSYNC_REDIS_PREFIX: prefix,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^queued job \S+: live incremental sync\n$/);
    expect(await jobsLeft(prefix)).toBe(1);
  });
});

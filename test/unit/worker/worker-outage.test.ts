/** The worker in process through a Redis outage: the run in hand, and webhook events meanwhile. */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { checkpointKey } from '../../../src/sync/checkpoints/redis-store.js';
import { startOwnRedis } from '../../helpers/redis-server.js';
import { eventually } from '../../helpers/worker.js';
import { collect, options, setup, start } from '../../helpers/worker-in-process.js';

/** The JSON lines logged so far. */
const parsed = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('worker through a Redis outage, in process', () => {
  it('a run in hand through a Redis that comes back empty ends without a failure; its job is gone in one line', async () => {
    const own = await startOwnRedis();
    const { sim, prefix, db } = await setup({ preRecorded: 0, live: 60, latencyMs: 200 });
    const log = collect();
    const base = options(sim, db, prefix, { kinds: ['live'], logger: createLogger('info', {}, log) });
    const running = await start({ ...base, settings: { ...base.settings, redisUrl: own.url } });
    await eventually(
      () => (log.text().includes('"msg":"job started"') ? true : undefined),
      'the run started',
    );

    await own.stop();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await own.start();

    await eventually(() => running.metrics.lastSuccess('live'), 'a run succeeded');
    await eventually(
      () => (log.text().includes('"msg":"Redis connection back"') ? true : undefined),
      'Redis back',
    );
    const client = new Redis(own.url);
    const saved = await client.get(checkpointKey(prefix, 'live'));
    client.disconnect();
    expect(saved).not.toBeNull();
    const lines = parsed(log.text());
    expect(lines.filter((l) => Number(l['level']) >= 50).map((l) => l['msg'])).toEqual([]);
    expect(lines.filter((l) => String(l['msg']).startsWith('job failed'))).toEqual([]);
    // The job in hand went with the rest: one line, whether its run finished or BullMQ ended it.
    const messages = lines.map((l) => String(l['msg']));
    expect(messages.filter((m) => m.startsWith('the job in hand is gone from Redis'))).toHaveLength(1);
  });
});

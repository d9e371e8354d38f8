/**
 * The worker in process through a Redis outage: the run in hand (Redis back empty, or back with its
 * data after the job lock ran out), and webhook events meanwhile.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { checkpointKey } from '../../../src/sync/checkpoints/redis-store.js';
import { startOwnRedis } from '../../helpers/redis-server.js';
import { eventually } from '../../helpers/worker.js';
import { collect, get, options, setup, start } from '../../helpers/worker-in-process.js';

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

  it('answers webhook events 503 during the outage, counted, with no line of their own', async () => {
    const own = await startOwnRedis();
    const { sim, prefix, db } = await setup({ preRecorded: 0, live: 3 });
    const log = collect();
    const base = options(sim, db, prefix, { kinds: ['live'], logger: createLogger('info', {}, log) });
    const secret = 'wh-outage-0123456789abcdef0123456789abcdef';
    const running = await start({
      ...base,
      settings: { ...base.settings, redisUrl: own.url },
      webhook: { host: '127.0.0.1', port: 0, secret, ratePerSecond: 1_000 },
    });
    await eventually(() => running.metrics.lastSuccess('live'), 'the first run');

    await own.stop();
    await eventually(
      () => (log.text().includes('"msg":"Redis connection lost') ? true : undefined),
      'the loss logged',
    );
    const target = `http://127.0.0.1:${running.webhookPort}/webhook/${secret}`;
    const body = JSON.stringify({ event: 'live.completed', payload: { id: 'x' } });
    const statuses = await Promise.all(
      [1, 2, 3].map(async () => (await fetch(target, { method: 'POST', body })).status),
    );
    expect(statuses).toEqual([503, 503, 503]);
    expect((await get(running, '/metrics')).body).toContain(
      'tsync_webhook_requests_total{answer="unavailable"} 3',
    );
    await own.start();
    // Back (empty), the worker registers its schedules again and runs one: by then any run an
    // event queued while Redis was away would have been queued too.
    const completed = () => log.text().split('"msg":"job completed"').length - 1;
    const before = completed();
    await eventually(() => (completed() > before ? true : undefined), 'a run after the outage');

    const lines = parsed(log.text()).filter((l) => Number(l['level']) >= 30);
    // An event answered 503 queued nothing, not even once Redis was back.
    expect(lines.filter((l) => String(l['job_id'] ?? '').startsWith('event-'))).toEqual([]);
    expect(lines.filter((l) => String(l['msg']).startsWith('could not queue'))).toEqual([]);
    expect(lines.filter((l) => String(l['msg']).startsWith('Redis connection lost'))).toHaveLength(1);
  });

  it('a run whose job lock ran out in a Redis freeze: one warn line, no error, and the job runs again', async () => {
    const own = await startOwnRedis();
    const { sim, prefix, db } = await setup({ preRecorded: 0, live: 60, latencyMs: 200 });
    const log = collect();
    const base = options(sim, db, prefix, { kinds: ['live'], logger: createLogger('info', {}, log) });
    await start({ ...base, jobLockMs: 2_000, settings: { ...base.settings, redisUrl: own.url } });
    await eventually(
      () => (log.text().includes('"msg":"job started"') ? true : undefined),
      'the run started',
    );

    await own.freeze(3_000);

    await eventually(
      () => (log.text().includes('"msg":"job completed"') ? true : undefined),
      'the job completed',
    );
    const lines = parsed(log.text());
    const messages = lines.map((l) => String(l['msg']));
    expect(lines.filter((l) => Number(l['level']) >= 50).map((l) => l['msg'])).toEqual([]);
    expect(messages.filter((m) => m.startsWith('the job lock ran out'))).toHaveLength(1);
    // Its second run resumed from the checkpoint the first one left.
    expect(messages.filter((m) => m === 'job started')).toHaveLength(2);
  });
});

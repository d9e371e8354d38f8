/**
 * The worker process through a Redis outage, with a redis-server of the test's own that is stopped
 * and started again empty: one log line per change of state, /metrics answering throughout,
 * /healthz saying why it fails, the schedules and webhook runs back within seconds of the restart
 * however long the outage, the worker lock kept, and a shutdown during the outage within its bound;
 * and `enqueue --wait`, whose wait ends with one line naming Redis rather than lasting the outage.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { writerLockPath } from '../../src/store/file/writer-lock.js';
import { bullConnection } from '../../src/worker/connection.js';
import { createSyncQueue, SYNC_QUEUE } from '../../src/worker/queue.js';
import { startOwnRedis } from '../helpers/redis-server.js';
import { tempDir } from '../helpers/tmp.js';
import { eventually, NO_REPORT, onCleanup, spawnCli } from '../helpers/worker.js';

async function get(port: number, path: string) {
  const started = Date.now();
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(10_000) });
  return { status: response.status, body: await response.text(), ms: Date.now() - started };
}

describe('worker through a Redis outage', () => {
  it('logs the loss and the return once each, keeps /metrics answering, restores its schedules and keeps its lock', async () => {
    const redis = await startOwnRedis();
    const sim = await startSimulator({ preRecorded: 5, live: 5, utterancesPerJob: 1, wordsPerUtterance: 2 });
    onCleanup(() => sim.close());
    const db = join(tempDir(), 'transcripts.duckdb');
    const env = {
      TSYNC_API_KEY: sim.apiKey,
      TSYNC_BASE_URL: sim.url,
      TSYNC_DB: db,
      REDIS_URL: redis.url,
      TSYNC_LOG_LEVEL: 'info',
    };
    const worker = spawnCli(
      ['worker', '--metrics-port', '0', '--every', '1h', '--shutdown-timeout', '5s'],
      env,
    );
    const serving = await worker.waitForLog((l) => l['msg'] === 'serving /metrics and /healthz');
    const port = Number(new URL(String(serving['url'])).port);
    // Both syncs and the billing report done: no job is in flight when Redis goes.
    await eventually(
      async () => (worker.stderr().split('"msg":"job completed"').length === 4 ? true : undefined),
      'the first three jobs',
    );
    const lockBefore = readFileSync(writerLockPath(db, 'worker'), 'utf8');
    const queue = createSyncQueue(redis.url, 'tsync');
    queue.on('error', () => {}); // this test stops Redis below
    onCleanup(() => queue.close());
    const registered = (await queue.getJobSchedulers()).length;
    expect(registered).toBeGreaterThan(0);
    expect((await get(port, '/healthz')).status).toBe(200);

    await redis.stop();
    await worker.waitForLog((l) => l['msg']?.toString().startsWith('Redis connection lost') === true);
    const metrics = await get(port, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('tsync_queue_jobs_readable 0');
    expect(metrics.body).not.toMatch(/^tsync_queue_jobs\{/m);
    expect(metrics.body).toMatch(/tsync_runs_total\{kind="pre-recorded",mode="incremental",outcome="ok"\} 1/);
    const health = await get(port, '/healthz');
    expect(health.status).toBe(503);
    expect(JSON.parse(health.body)).toMatchObject({ status: 'unhealthy', redis: 'unreachable' });
    expect(JSON.parse(health.body).reasons[0]).toMatch(/^Redis does not answer PING/);
    // Long enough for dozens of reconnect attempts.
    await new Promise((r) => setTimeout(r, 3_000));

    await redis.start();
    await worker.waitForLog((l) => l['msg'] === 'Redis connection back');
    const schedulers = await eventually(async () => {
      const found = await queue.getJobSchedulers();
      return found.length === registered ? found : undefined;
    }, 'the schedules registered again');
    expect(schedulers).toHaveLength(registered);
    await eventually(
      async () => ((await get(port, '/healthz')).status === 200 ? true : undefined),
      '/healthz 200',
    );
    expect((await get(port, '/metrics')).body).toContain('tsync_queue_jobs_readable 1');
    expect(readFileSync(writerLockPath(db, 'worker'), 'utf8')).toBe(lockBefore);

    const lines = worker.stderr().trim().split('\n');
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(lines.filter((l) => l.includes('Redis connection lost'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('Redis connection back'))).toHaveLength(1);
    expect(lines.filter((l) => /ECONNREFUSED/.test(l)).length).toBeLessThanOrEqual(1);

    // Down again: a shutdown still ends cleanly, well within --shutdown-timeout (5 s), and removes
    // the lock. It takes ~0.5 s: closing steps that need Redis wait 250 ms each, and the worker exits
    // once stopped instead of waiting out the bin's 2 s grace on BullMQ's reconnecting clients (4-5 s
    // before; the bound leaves room for a loaded machine).
    await redis.stop();
    await eventually(
      async () => (worker.stderr().split('Redis connection lost').length === 3 ? true : undefined),
      'the second loss logged',
    );
    const stopAt = Date.now();
    worker.process.kill('SIGTERM');
    const code = await worker.exited;
    expect(Date.now() - stopAt, `exit ${code}`).toBeLessThan(3_000);
    expect(code, worker.stderr()).toBe(0);
    await expect(import('node:fs').then((fs) => fs.existsSync(writerLockPath(db, 'worker')))).resolves.toBe(
      false,
    );
  });

  it('takes webhook runs and has its schedules again within seconds of Redis coming back from a long outage', async () => {
    const redis = await startOwnRedis();
    const sim = await startSimulator({ preRecorded: 5, live: 5, utterancesPerJob: 1, wordsPerUtterance: 2 });
    onCleanup(() => sim.close());
    const secret = 'outage-0123456789abcdef0123456789abcdef';
    const worker = spawnCli(
      ['worker', '--metrics-port', '0', '--webhook-port', '0', '--every', '1h', ...NO_REPORT],
      {
        TSYNC_API_KEY: sim.apiKey,
        TSYNC_BASE_URL: sim.url,
        TSYNC_DB: join(tempDir(), 'transcripts.duckdb'),
        TSYNC_WEBHOOK_SECRET: secret,
        REDIS_URL: redis.url,
        TSYNC_LOG_LEVEL: 'info',
      },
    );
    const serving = await worker.waitForLog((l) => l['msg'] === 'serving POST /webhook/<secret>');
    const hook = `${String(serving['url'])}/webhook/${secret}`;
    await eventually(
      async () => (worker.stderr().split('"msg":"job completed"').length === 3 ? true : undefined),
      'the first two syncs',
    );

    await redis.stop();
    await worker.waitForLog((l) => l['msg']?.toString().startsWith('Redis connection lost') === true);
    // Longer than the few seconds after which a client backing off exponentially waits many
    // seconds between its attempts to reconnect.
    await new Promise((r) => setTimeout(r, 11_000));
    await redis.start();
    const backAt = Date.now();

    const queue = createSyncQueue(redis.url, 'tsync');
    queue.on('error', () => {});
    onCleanup(() => queue.close());
    const registeredAt = await eventually(
      async () => ((await queue.getJobSchedulers()).length > 0 ? Date.now() : undefined),
      'the schedules registered again',
      15_000,
    );
    const event = JSON.stringify({ event: 'transcription.success', payload: { id: 'x' } });
    const answer = await eventually(
      async () => {
        const response = await fetch(hook, {
          method: 'POST',
          body: event,
          signal: AbortSignal.timeout(5_000),
        });
        return response.status === 202 ? Date.now() : undefined;
      },
      'a webhook run queued',
      15_000,
    );
    expect(registeredAt - backAt).toBeLessThan(4_000);
    expect(answer - backAt).toBeLessThan(4_000);
  });
});

describe('enqueue --wait through a Redis outage', () => {
  it('ends soon after --timeout with one line naming Redis, and no error on stderr', async () => {
    const redis = await startOwnRedis();
    // Listed among the queue's workers, so enqueue --wait queues its job, but never fetches one.
    const idle = new Worker(SYNC_QUEUE, null, {
      connection: bullConnection(redis.url),
      prefix: 'tsync',
      name: 'idle',
      autorun: false,
    });
    idle.on('error', () => {});
    onCleanup(() => idle.close());
    await idle.waitUntilReady();
    const queue = createSyncQueue(redis.url, 'tsync');
    queue.on('error', () => {});
    onCleanup(() => queue.close());

    const enqueue = spawnCli(['enqueue', '--wait', '--kind', 'live', '--timeout', '2s'], {
      REDIS_URL: redis.url,
    });
    await eventually(async () => ((await queue.getWaitingCount()) > 0 ? true : undefined), 'the job queued');
    await redis.stop();
    const stoppedAt = Date.now();
    const code = await Promise.race([
      enqueue.exited,
      new Promise((r) => setTimeout(() => r('still waiting'), 15_000)),
    ]);
    const took = Date.now() - stoppedAt;
    // Started again (empty) for the cleanups, which close clients politely.
    await redis.start();
    expect(code, enqueue.stderr()).toBe(1);
    // --timeout, then the time Redis has to answer, and the program's exit.
    expect(took).toBeLessThan(9_000);
    expect(enqueue.stdout()).toMatch(
      /^job \S+ \(live incremental\) did not finish within 2\.0s: .*Redis.*REDIS_URL/,
    );
    expect(enqueue.stdout().trim().split('\n')).toHaveLength(1);
    expect(enqueue.stderr()).toBe('');
  });
});

/** /metrics and /healthz of the worker, over real HTTP, with a real queue in Redis. */
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { JobKind } from '../../../src/kinds.js';
import { silentLogger } from '../../../src/log.js';
import type { KindSummary } from '../../../src/sync/types.js';
import { checkHealth, serve as serveEndpoint, startMetricsServer } from '../../../src/worker/http-server.js';
import { createWorkerMetrics, type WorkerMetrics } from '../../../src/worker/metrics.js';
import { createSyncQueue, SYNC_JOB } from '../../../src/worker/queue.js';
import { redisUrl, uniquePrefix } from '../../helpers/redis.js';
import { onCleanup, testRedis } from '../../helpers/worker.js';

function summary(kind: JobKind, outcome: KindSummary['outcome'], finishedAt: string): KindSummary {
  return {
    runId: 'r1',
    kind,
    mode: 'incremental',
    windowAfter: null,
    windowBefore: finishedAt,
    pages: 3,
    requests: 4,
    retries: 1,
    pauses: 1,
    jobsFetched: 50,
    inserted: 30,
    updated: 12,
    unchanged: 8,
    quarantined: 2,
    deleted: 0,
    expired: 0,
    restored: 0,
    words: 1000,
    pendingRechecked: 0,
    restarts: 0,
    startedAt: new Date(Date.parse(finishedAt) - 2_000).toISOString(),
    finishedAt,
    outcome,
  };
}

async function serve(
  metrics: WorkerMetrics,
  redis: Redis,
  options: { startedAt?: number; staleAfterMs?: number } = {},
) {
  const server = await startMetricsServer({
    host: '127.0.0.1',
    port: 0,
    registry: metrics.registry,
    logger: silentLogger,
    health: () =>
      checkHealth({
        redis,
        kinds: ['pre-recorded', 'live'],
        staleAfterMs: options.staleAfterMs ?? 3_600_000,
        startedAt: options.startedAt ?? Date.now(),
        metrics,
      }),
  });
  onCleanup(() => server.close());
  const get = async (path: string) => {
    const response = await fetch(`http://127.0.0.1:${server.port}${path}`);
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      body: await response.text(),
    };
  };
  return { get };
}

function setup() {
  const prefix = uniquePrefix('metrics');
  const redis = testRedis(prefix);
  const queue = createSyncQueue(redisUrl(), prefix);
  onCleanup(() => queue.close());
  return { redis, queue, metrics: createWorkerMetrics(queue, silentLogger) };
}

describe('worker metrics and health endpoints', () => {
  it('/metrics reports per kind the last success, runs by outcome, upserts, words, quarantine, requests, retries, rate-limit pauses, the last publish and queue counts', async () => {
    const { redis, queue, metrics } = setup();
    metrics.recordRun(summary('pre-recorded', 'ok', '2026-11-20T10:00:00.000Z'));
    metrics.recordRun(summary('pre-recorded', 'interrupted', '2026-11-20T10:05:00.000Z'));
    metrics.recordFailure('live', 'full');
    await queue.add(SYNC_JOB, { kind: 'live', mode: 'incremental' });
    await queue.add(SYNC_JOB, { kind: 'pre-recorded', mode: 'incremental' });
    const { get } = await serve(metrics, redis);
    expect((await get('/metrics')).body).not.toMatch(/^tsync_last_publish_timestamp_seconds/m);
    metrics.recordPublish('s3://lake/transcripts', new Date('2026-11-20T10:06:00.000Z'));

    const { status, type, body } = await get('/metrics');
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain/);
    expect(body).toContain('tsync_last_success_timestamp_seconds{kind="pre-recorded"} 1795168800');
    expect(body).toContain('tsync_runs_total{kind="pre-recorded",mode="incremental",outcome="ok"} 1');
    expect(body).toContain(
      'tsync_runs_total{kind="pre-recorded",mode="incremental",outcome="interrupted"} 1',
    );
    expect(body).toContain('tsync_runs_total{kind="live",mode="full",outcome="failed"} 1');
    expect(body).toContain('tsync_jobs_upserted_total{kind="pre-recorded"} 84');
    expect(body).toContain('tsync_words_loaded_total{kind="pre-recorded"} 2000');
    expect(body).toContain('tsync_last_publish_timestamp_seconds{target="bucket"} 1795169160');
    expect(body).toContain('tsync_records_quarantined_total{kind="pre-recorded"} 4');
    expect(body).toContain('tsync_requests_total{kind="pre-recorded"} 8');
    expect(body).toContain('tsync_request_retries_total{kind="pre-recorded"} 2');
    expect(body).toContain('tsync_rate_limit_pauses_total{kind="pre-recorded"} 2');
    expect(body).toContain('tsync_queue_jobs{state="waiting"} 2');
    expect(body).toContain('tsync_queue_jobs{state="failed"} 0');
    expect(body).toContain('tsync_process_cpu_seconds_total');
  });

  it('each scrape reports whether it read the queue counts at that scrape', async () => {
    const prefix = uniquePrefix('metrics');
    const redis = testRedis(prefix);
    const queue = createSyncQueue(redisUrl(), prefix);
    onCleanup(() => queue.close());
    let up = true;
    const metrics = createWorkerMetrics(queue, silentLogger, { redisUp: () => up });
    await queue.add(SYNC_JOB, { kind: 'live', mode: 'incremental' });
    const { get } = await serve(metrics, redis);

    const first = (await get('/metrics')).body;
    expect(first).toContain('tsync_queue_jobs{state="waiting"} 1');
    expect(first).toMatch(/^tsync_queue_jobs_readable 1$/m);

    up = false;
    const down = (await get('/metrics')).body;
    expect(down).not.toMatch(/^tsync_queue_jobs\{/m);
    expect(down).toMatch(/^tsync_queue_jobs_readable 0$/m);

    up = true;
    const back = (await get('/metrics')).body;
    expect(back).toContain('tsync_queue_jobs{state="waiting"} 1');
    expect(back).toMatch(/^tsync_queue_jobs_readable 1$/m);
  });

  it('reports the queue unreadable before the worker has attached a queue', async () => {
    const { redis } = setup();
    const metrics = createWorkerMetrics(() => undefined, silentLogger);
    const { get } = await serve(metrics, redis);
    const body = (await get('/metrics')).body;
    expect(body).not.toMatch(/^tsync_queue_jobs\{/m);
    expect(body).toMatch(/^tsync_queue_jobs_readable 0$/m);
  });

  it('/healthz is 200 for a fresh worker that has not finished a run yet', async () => {
    const { redis, metrics } = setup();
    const { get } = await serve(metrics, redis);
    const { status, body } = await get('/healthz');
    expect(status).toBe(200);
    expect(JSON.parse(body)).toMatchObject({
      status: 'ok',
      redis: 'ok',
      kinds: { live: { last_success: null, stale: false } },
    });
  });

  it('/healthz is 503 naming the kind whose last success is older than stale-after', async () => {
    const { redis, metrics } = setup();
    const hourAgo = Date.now() - 3_600_000;
    metrics.recordRun(summary('pre-recorded', 'ok', new Date().toISOString()));
    metrics.recordRun(summary('live', 'ok', new Date(hourAgo).toISOString()));
    const { get } = await serve(metrics, redis, { startedAt: hourAgo - 60_000, staleAfterMs: 600_000 });
    const { status, body } = await get('/healthz');
    expect(status).toBe(503);
    const report = JSON.parse(body);
    expect(report.status).toBe('unhealthy');
    expect(report.kinds['pre-recorded'].stale).toBe(false);
    expect(report.kinds.live.stale).toBe(true);
    expect(report.reasons).toEqual([
      expect.stringMatching(/^no successful live sync in 1h0m \(stale after 10m\)$/),
    ]);
  });

  it('/healthz is 503 when a fresh worker has had no success for longer than stale-after', async () => {
    const { redis, metrics } = setup();
    const { get } = await serve(metrics, redis, { startedAt: Date.now() - 120_000, staleAfterMs: 60_000 });
    const report = JSON.parse((await get('/healthz')).body);
    expect(report.reasons).toHaveLength(2);
    expect(report.reasons[0]).toMatch(/no successful pre-recorded sync since the worker started/);
  });

  it('/healthz is 503 when Redis does not answer', async () => {
    const { metrics } = setup();
    const dead = new Redis(redisUrl(), {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
    });
    const { get } = await serve(metrics, dead);
    const { status, body } = await get('/healthz');
    expect(status).toBe(503);
    expect(JSON.parse(body)).toMatchObject({ status: 'unhealthy', redis: 'unreachable' });
  });

  it('answers 404 elsewhere', async () => {
    const { redis, metrics } = setup();
    const { get } = await serve(metrics, redis);
    expect((await get('/')).status).toBe(404);
  });
});

describe('an endpoint with a request timeout', () => {
  it('ends a request that stalls mid-body within about a second of its timeout', async () => {
    const endpoint = await serveEndpoint(
      async (request, response) => {
        for await (const _ of request);
        response.end('ok');
      },
      { host: '127.0.0.1', port: 0, logger: silentLogger, requestTimeoutMs: 500 },
      'webhook',
    );
    onCleanup(() => endpoint.close());
    const socket = connect(endpoint.port, '127.0.0.1');
    socket.on('error', () => {});
    const started = performance.now();
    socket.write('POST /x HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 100\r\n\r\npart');
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    await new Promise((resolve) => socket.once('close', resolve));
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(performance.now() - started).toBeLessThan(2_500);
  }, 10_000);
});

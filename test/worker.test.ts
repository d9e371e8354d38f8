/**
 * The worker in this process against the simulator, real Redis and a real DuckDB file: scheduled
 * runs, enqueue --wait, a refused key, and the figures of /metrics and /healthz.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { JOBS } from '../jobs/index.js';
import { command as enqueue } from '../src/cli/enqueue.js';
import { silentLogger } from '../src/log.js';
import { type Simulator, type SimulatorOptions, startSimulator } from '../src/simulator/index.js';
import { writerLockPath } from '../src/store/writer-lock.js';
import { parseCheckpoint } from '../src/sync/checkpoint-schema.js';
import { checkpointKey } from '../src/sync/checkpoints-redis.js';
import { syncDefaults } from '../src/sync/plan-defaults.js';
import { SYNC_KINDS, type SyncKind } from '../src/sync/types.js';
import { createSyncQueue, REPORT_JOB } from '../src/worker/queue.js';
import { type RunningWorker, startWorker, type WorkerOptions } from '../src/worker/runtime.js';
import { actualFacts, expectedFacts } from './helpers/mirror.js';
import { redisUrl, uniquePrefix } from './helpers/redis.js';
import { tempDir } from './helpers/tmp.js';
import { onCleanup, testRedis } from './helpers/worker.js';

/** The config's defaults a worker starts with; each job picks its kind, mode and checkpoints. */
const { kinds: _kinds, full: _full, checkpoints: _checkpoints, ...workerDefaults } = syncDefaults();

const HOUR = 3_600_000;

async function setup(simOptions: SimulatorOptions = {}) {
  const sim = await startSimulator({
    preRecorded: 40,
    live: 30,
    utterancesPerJob: 4,
    wordsPerUtterance: 4,
    ...simOptions,
  });
  onCleanup(() => sim.close());
  const prefix = uniquePrefix('worker');
  const redis = testRedis(prefix);
  const db = join(tempDir(), 'transcripts.duckdb');
  return { sim, prefix, redis, db };
}

function options(
  sim: Simulator,
  db: string,
  prefix: string,
  overrides: Partial<WorkerOptions> = {},
): WorkerOptions {
  return {
    jobs: JOBS,
    settings: {
      ...workerDefaults,
      baseUrl: sim.url,
      apiKey: sim.apiKey,
      db,
      redisUrl: redisUrl(),
      redisPrefix: prefix,
      pageSize: 20,
      rateLimit: 10_000,
      reportDir: join(dirname(db), 'reports'),
    },
    kinds: SYNC_KINDS,
    every: { every: HOUR },
    fullEvery: { every: 24 * HOUR },
    reportEvery: { every: 24 * HOUR },
    metricsHost: '127.0.0.1',
    metricsPort: 0,
    staleAfterMs: HOUR,
    jobLockMs: 5_000,
    logger: silentLogger,
    ...overrides,
  };
}

async function start(opts: WorkerOptions): Promise<RunningWorker> {
  const running = await startWorker(opts);
  onCleanup(() => running.stop());
  return running;
}

async function eventually<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const succeeded = (running: RunningWorker, kinds: readonly SyncKind[]) => () =>
  kinds.every((k) => running.metrics.lastSuccess(k) !== undefined) || undefined;

async function get(running: RunningWorker, path: string) {
  const response = await fetch(`http://127.0.0.1:${running.metricsPort}${path}`);
  return { status: response.status, body: await response.text() };
}

function collect(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

describe('worker', () => {
  it("the scheduled billing report writes last month's and yesterday's CSV and HTML after the syncs", async () => {
    // Simulated history ends 2026-11-01, so last month (relative to now) holds billed jobs.
    const { sim, prefix, db } = await setup({ from: new Date(Date.now() - 80 * 86_400_000), to: new Date() });
    const running = await start(options(sim, db, prefix));
    const reports = join(dirname(db), 'reports');
    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1))
      .toISOString()
      .slice(0, 7);
    const yesterday = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 1))
      .toISOString()
      .slice(0, 10);
    // Named after the database (transcripts.duckdb), so reports of several databases can share a folder.
    const monthCsv = join(reports, `billing-transcripts-month-${lastMonth}-all.csv`);
    const expected = [
      `billing-transcripts-month-${lastMonth}-all.html`,
      `billing-transcripts-day-${yesterday}-all.csv`,
      `billing-transcripts-day-${yesterday}-all.html`,
    ];
    // The job writes its files one after the other: wait for all of them, not the first.
    await eventually(
      () =>
        [monthCsv, ...expected.map((name) => join(reports, name))].every((f) => existsSync(f)) || undefined,
      'the billing reports',
    );
    for (const name of expected) expect(existsSync(join(reports, name)), name).toBe(true);
    const billed = sim.data
      .all()
      .filter((r) => r['status'] === 'done' && String(r['created_at']).startsWith(lastMonth)).length;
    const lines = readFileSync(monthCsv, 'utf8').trim().split('\n');
    expect(lines[0]).toMatch(/^# as of \d{4}-/);
    const [header, ...rows] = lines.filter((line) => !line.startsWith('#') && !line.startsWith('total,'));
    expect(header).toContain('billed_hours');
    const jobsColumn = header!.split(',').indexOf('jobs');
    expect(rows.reduce((n, row) => n + Number(row.split(',')[jobsColumn]), 0)).toBe(billed);
    await running.stop();
  });

  it('report runs write the periods missed while no report ran, and a late completion rewrites its day', async () => {
    const { sim, prefix, db } = await setup({ from: new Date(Date.now() - 40 * 86_400_000), to: new Date() });
    const now = new Date();
    const dayOf = (daysAgo: number) =>
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - daysAgo))
        .toISOString()
        .slice(0, 10);
    // A job of yesterday still processing when the first report is written.
    const late = sim.data.add({
      kind: 'live',
      status: 'processing',
      createdAt: new Date(`${dayOf(1)}T12:00:00.000Z`),
    });
    // The report schedule fires once a year: this test runs the report job itself.
    const running = await start(options(sim, db, prefix, { reportEvery: { pattern: '0 0 1 1 *' } }));
    await eventually(succeeded(running, SYNC_KINDS), 'a successful run of each kind');
    const queue = createSyncQueue(redisUrl(), prefix);
    onCleanup(() => queue.close());
    const reportRun = async (payload: { now?: string }) => {
      const job = await queue.add(REPORT_JOB, payload);
      return eventually(async () => {
        // State first, then the job: a job read before its completion carries no return value yet.
        if ((await queue.getJobState(String(job.id))) !== 'completed') return undefined;
        return (await queue.getJob(String(job.id)))?.returnvalue as { written: string[] };
      }, 'the billing report job');
    };
    const dayFile = (daysAgo: number) =>
      join(dirname(db), 'reports', `billing-transcripts-day-${dayOf(daysAgo)}-all.csv`);

    // The last report ran five days ago; the days since were missed.
    await reportRun({ now: new Date(`${dayOf(5)}T06:00:00.000Z`).toISOString() });
    expect(existsSync(dayFile(6))).toBe(true);
    for (const daysAgo of [1, 2, 3, 4, 5]) expect(existsSync(dayFile(daysAgo))).toBe(false);
    const caughtUp = await reportRun({});
    for (const daysAgo of [1, 2, 3, 4, 5]) {
      expect(caughtUp.written).toContain(dayFile(daysAgo));
      expect(existsSync(dayFile(daysAgo))).toBe(true);
    }
    expect(caughtUp.written).not.toContain(dayFile(6));
    const jobsOf = (path: string) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .find((line) => line.startsWith(`${dayOf(1)},live,`))
        ?.split(',')[2];
    const before = Number(jobsOf(dayFile(1)));
    expect(readFileSync(dayFile(1), 'utf8')).toMatch(/^# not counted: 0 quarantined .*, [1-9]\d* pending/m);

    // The job completes late; the next sync picks it up, and the next report rewrites that day only.
    sim.data.advance(late['id'] as string, 'done');
    const out = collect();
    const flags = { kind: 'live', wait: true, json: true, 'redis-url': redisUrl(), 'redis-prefix': prefix };
    expect(
      await enqueue.run({ flags, positionals: [], stdout: out.stream, stderr: out.stream, env: {} }),
    ).toBe(0);
    const afterLate = await reportRun({});
    expect(afterLate.written).toContain(dayFile(1));
    expect(afterLate.written.filter((path) => path.includes('-day-'))).toEqual(
      afterLate.written.filter((path) => path.includes(`-day-${dayOf(1)}-`)),
    );
    expect(Number(jobsOf(dayFile(1)))).toBe(before + 1);
    await running.stop();
  });

  it('a scheduled run syncs every job from the simulator, writes the Redis checkpoints and reports the figures', async () => {
    const { sim, prefix, redis, db } = await setup();
    const running = await start(options(sim, db, prefix));
    await eventually(succeeded(running, SYNC_KINDS), 'a successful run of each kind');

    const metrics = (await get(running, '/metrics')).body;
    expect(metrics).toContain('tsync_runs_total{kind="pre-recorded",mode="incremental",outcome="ok"} 1');
    expect(metrics).toContain('tsync_jobs_upserted_total{kind="pre-recorded"} 40');
    expect(metrics).toContain('tsync_jobs_upserted_total{kind="live"} 30');
    expect(metrics).toMatch(/tsync_requests_total\{kind="live"\} [1-9]/);
    expect(metrics).toMatch(/tsync_last_success_timestamp_seconds\{kind="live"\} \d{10}/);
    const health = await get(running, '/healthz');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body).kinds.live.last_success).toMatch(/^\d{4}-/);

    await running.stop();
    for (const kind of SYNC_KINDS) {
      const checkpoint = parseCheckpoint(await redis.get(checkpointKey(prefix, kind)));
      expect(checkpoint?.watermark, kind).toMatch(/^\d{4}-/);
    }
    expect(existsSync(writerLockPath(db))).toBe(false);
    const facts = await actualFacts(db);
    const expected = expectedFacts(sim.data.all());
    expect(facts.jobs).toEqual(expected.jobs);
    expect(facts.words).toBe(expected.words);
  });

  it('two starts register one schedule per kind and mode; the second start with new intervals updates them', async () => {
    const { sim, prefix, db } = await setup();
    const first = await start(options(sim, db, prefix));
    await first.stop();
    const second = await start(
      options(sim, db, prefix, { every: { every: 2 * HOUR }, fullEvery: { pattern: '0 3 * * *' } }),
    );
    const queue = createSyncQueue(redisUrl(), prefix);
    onCleanup(() => queue.close());

    const schedulers = await queue.getJobSchedulers(0, -1, true);
    const seen = schedulers
      .map((s) => [s.key, s.every ?? s.pattern] as const)
      .sort(([a], [b]) => a.localeCompare(b));
    expect(seen).toEqual([
      ['report:billing', 24 * HOUR],
      ['sync:live:full', '0 3 * * *'],
      ['sync:live:incremental', 2 * HOUR],
      ['sync:pre-recorded:full', '0 3 * * *'],
      ['sync:pre-recorded:incremental', 2 * HOUR],
    ]);
    await second.stop();
  });

  it('enqueue --wait runs a sync now through the queue and prints its summary', async () => {
    const { sim, prefix, db } = await setup();
    const running = await start(options(sim, db, prefix, { kinds: ['live'] }));
    await eventually(succeeded(running, ['live']), 'the first live run');
    const added = sim.data.add({ kind: 'live', status: 'done' });

    const out = collect();
    const flags = { kind: 'live', wait: true, json: true, 'redis-url': redisUrl(), 'redis-prefix': prefix };
    const code = await enqueue.run({
      flags,
      positionals: [],
      stdout: out.stream,
      stderr: out.stream,
      env: {},
    });

    expect(code).toBe(0);
    const [line, ...rest] = out.text().trim().split('\n');
    expect(rest).toEqual([]);
    const result = JSON.parse(line ?? '{}');
    expect(result).toMatchObject({
      kind: 'live',
      mode: 'incremental',
      state: 'completed',
      summary: { outcome: 'ok' },
    });
    expect(result.summary.kinds[0].inserted).toBe(1);
    await running.stop();
    expect((await actualFacts(db)).jobs[String(added['id'])]).toBe('done');
  });

  it('enqueue --recent reconciles only the recent window; the whole-history reconcile finds the older deletion', async () => {
    const { sim, prefix, db } = await setup({
      from: new Date(Date.now() - 30 * 24 * HOUR),
      to: new Date(Date.now() - HOUR),
    });
    const base = options(sim, db, prefix, { kinds: ['live'] });
    const running = await start({ ...base, settings: { ...base.settings, reconcileWindow: 7 * 24 * HOUR } });
    await eventually(succeeded(running, ['live']), 'the first live run');
    const live = sim.data.all().filter((r) => r['kind'] === 'live');
    const ageDays = (r: Record<string, unknown>) =>
      (Date.now() - Date.parse(String(r['created_at']))) / (24 * HOUR);
    const recent = live.find((r) => ageDays(r) < 6);
    const old = live.find((r) => ageDays(r) > 14);
    sim.data.delete(String(recent?.['id']));
    sim.data.delete(String(old?.['id']));

    const flags = { kind: 'live', wait: true, json: true, 'redis-url': redisUrl(), 'redis-prefix': prefix };
    const runOnce = async (extra: Record<string, boolean>) => {
      const out = collect();
      const code = await enqueue.run({
        flags: { ...flags, ...extra },
        positionals: [],
        stdout: out.stream,
        stderr: out.stream,
        env: {},
      });
      expect(code, out.text()).toBe(0);
      return JSON.parse(out.text().trim()).summary.kinds[0];
    };
    const windowed = await runOnce({ recent: true });
    expect(windowed.deleted).toBe(1);
    expect(windowed.window_after).not.toBeNull();
    expect(windowed.jobs_fetched).toBeLessThan(live.length / 2);
    const whole = await runOnce({ full: true });
    expect(whole.deleted).toBe(1);
    expect(whole.window_after).toBeNull();
    await running.stop();
  });

  it('a refused key fails the job at once, without retries, with the reason in failedReason', async () => {
    const { sim, prefix, db } = await setup();
    const opts = options(sim, db, prefix, { kinds: ['pre-recorded'] });
    const running = await start({ ...opts, settings: { ...opts.settings, apiKey: 'not-the-key' } });
    const queue = createSyncQueue(redisUrl(), prefix);
    onCleanup(() => queue.close());

    const [job] = await eventually(async () => {
      const failed = await queue.getFailed();
      return failed.length > 0 ? failed : undefined;
    }, 'a failed job');
    expect(job?.attemptsMade).toBe(1);
    expect(job?.opts.attempts).toBe(5);
    expect(job?.failedReason).toMatch(/refused the API key \(HTTP 401\).*TSYNC_API_KEY/);
    expect(job?.failedReason).not.toContain('not-the-key');
    // A job BullMQ retries would be 'delayed' (backoff) under the same id, not 'failed'.
    expect(await job?.getState()).toBe('failed');
    expect((await get(running, '/metrics')).body).toContain(
      'tsync_runs_total{kind="pre-recorded",mode="incremental",outcome="failed"} 1',
    );
    // The billing report of a mirror that never synced writes nothing (no month of zeros).
    const report = await eventually(async () => {
      const completed = await queue.getCompleted();
      return completed.find((j) => j.name === REPORT_JOB);
    }, 'the billing report job');
    expect(report.returnvalue).toMatchObject({ written: [] });
    expect(existsSync(join(dirname(db), 'reports'))).toBe(false);
  });
});

/**
 * The worker in this process against the simulator, real Redis and a real DuckDB file: scheduled
 * runs, enqueue --wait, a refused key, and the figures of /metrics and /healthz. Its billing
 * reports are worker-reports.test.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { command as enqueue } from '../../../src/cli/commands/enqueue.js';
import { JOB_KINDS } from '../../../src/kinds.js';
import { createLogger, silentLogger } from '../../../src/log.js';
import { writerLockPath } from '../../../src/store/file/writer-lock.js';
import { checkpointKey } from '../../../src/sync/checkpoints/redis-store.js';
import { parseCheckpoint } from '../../../src/sync/checkpoints/schema.js';
import { createSyncQueue, REPORT_JOB } from '../../../src/worker/queue.js';
import type { RunningWorker } from '../../../src/worker/runtime.js';
import { onCleanup } from '../../helpers/cleanup.js';
import { actualFacts, expectedFacts } from '../../helpers/mirror.js';
import { freePort } from '../../helpers/net.js';
import { redisUrl } from '../../helpers/redis.js';
import { eventually } from '../../helpers/worker.js';
import {
  collect,
  get,
  HOUR,
  NO_REPORT_RUN,
  REPORT_AT_START,
  reportingWithin,
  setup,
  start,
  succeeded,
  options as workerOptions,
} from '../../helpers/worker-in-process.js';

/** Records of a few words: what the worker does with a job does not depend on its length. */
const SHORT = { utterancesPerJob: 2, wordsPerUtterance: 2 } as const;

/**
 * The helper's worker options, with the worker's default report schedule: a billing report as each
 * start runs, covering the last complete day and month only (--report-window 1d): the report's
 * periods are worker-reports.test.ts's.
 */
/** `enqueue` run in this process with `flags`, its output into `out`; its exit code. */
function enqueueInto(
  out: ReturnType<typeof collect>,
  flags: Record<string, string | boolean>,
): Promise<number> {
  return enqueue.run({ flags, positionals: [], stdout: out.stream, stderr: out.stream, env: {} });
}

function options(...[sim, db, prefix, overrides]: Parameters<typeof workerOptions>) {
  return reportingWithin(
    '1d',
    workerOptions(sim, db, prefix, { reportEvery: REPORT_AT_START, ...overrides }),
  );
}

describe('worker', () => {
  it('a scheduled run syncs every job from the simulator, writes the Redis checkpoints and reports the figures', async () => {
    // Two pages of pre-recorded jobs (20 a page), one of live ones.
    const { sim, prefix, redis, db } = await setup({ preRecorded: 25, live: 12, ...SHORT });
    const running = await start(options(sim, db, prefix));
    await eventually(succeeded(running, JOB_KINDS), 'a successful run of each kind');

    const metrics = (await get(running, '/metrics')).body;
    expect(metrics).toContain('tsync_runs_total{kind="pre-recorded",mode="incremental",outcome="ok"} 1');
    expect(metrics).toContain('tsync_jobs_upserted_total{kind="pre-recorded"} 25');
    expect(metrics).toContain('tsync_jobs_upserted_total{kind="live"} 12');
    expect(metrics).toMatch(/tsync_requests_total\{kind="live"\} [1-9]/);
    expect(metrics).toMatch(/tsync_last_success_timestamp_seconds\{kind="live"\} \d{10}/);
    const health = await get(running, '/healthz');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body).kinds.live.last_success).toMatch(/^\d{4}-/);

    await running.stop();
    for (const kind of JOB_KINDS) {
      const checkpoint = parseCheckpoint(await redis.get(checkpointKey(prefix, kind)));
      expect(checkpoint?.watermark, kind).toMatch(/^\d{4}-/);
    }
    expect(existsSync(writerLockPath(db))).toBe(false);
    expect(existsSync(writerLockPath(db, 'worker'))).toBe(false);
    const facts = await actualFacts(db);
    const expected = expectedFacts(sim.data.all());
    expect(facts.jobs).toEqual(expected.jobs);
    expect(facts.words).toBe(expected.words);
  });

  it('two starts register one schedule per kind and mode; the second start with new intervals updates them', async () => {
    const { sim, prefix, db } = await setup({ preRecorded: 3, live: 3, ...SHORT });
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
    const { sim, prefix, db } = await setup({ preRecorded: 3, live: 6, ...SHORT });
    const running = await start(options(sim, db, prefix, { kinds: ['live'] }));
    await eventually(succeeded(running, ['live']), 'the first live run');
    const added = sim.data.add({ kind: 'live', status: 'done' });

    const out = collect();
    const flags = { kind: 'live', wait: true, json: true, 'redis-url': redisUrl(), 'redis-prefix': prefix };
    const code = await enqueueInto(out, flags);

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

  it('enqueue --wait past --timeout says why a run the worker took failed, and leaves its retry queued', async () => {
    const { sim, prefix, db } = await setup({ preRecorded: 3, live: 3, ...SHORT });
    // No scheduled run: the worker runs only the job enqueued, against a service that is down.
    const opts = options(sim, db, prefix, { kinds: ['live'], every: NO_REPORT_RUN });
    const down = `http://127.0.0.1:${await freePort()}`;
    const running = await start({ ...opts, settings: { ...opts.settings, baseUrl: down } });

    const out = collect();
    const flags = {
      kind: 'live',
      wait: true,
      timeout: '12s',
      'redis-url': redisUrl(),
      'redis-prefix': prefix,
    };
    const code = await enqueueInto(out, flags);

    expect(code).toBe(1);
    const line = out.text().trim();
    expect(line).toMatch(
      /^job \S+ \(live incremental\) did not finish within 12\.0s: attempt 1 of 5 failed: .*request to GET \/v2\/live failed \(ECONNREFUSED.*; it stays delayed in the queue and the worker retries it after a backoff$/,
    );
    expect(line).not.toMatch(/no worker took it/);
    // The worker took it: its retry stays queued, as BullMQ's backoff has it.
    const queue = createSyncQueue(redisUrl(), prefix);
    onCleanup(() => queue.close());
    const [job] = await queue.getDelayed();
    expect(job?.attemptsMade).toBe(1);
    expect(job?.data).toEqual({ kind: 'live', mode: 'incremental' });
    await running.stop();
  });

  it('enqueue --recent reconciles only the recent window; the whole-history reconcile finds the older deletion', async () => {
    // A live job about every two days over 30 days: some inside the 7-day window, most before it.
    const { sim, prefix, db } = await setup({
      preRecorded: 3,
      live: 16,
      ...SHORT,
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
      const code = await enqueueInto(out, { ...flags, ...extra });
      expect(code, out.text()).toBe(0);
      return JSON.parse(out.text().trim()).summary.kinds[0];
    };
    const windowed = await runOnce({ recent: true });
    expect(windowed.deleted).toBe(1);
    expect(windowed.window_after).not.toBeNull();
    expect(windowed.mode).toBe('recent');
    expect(windowed.jobs_fetched).toBeLessThan(live.length / 2);
    const whole = await runOnce({ full: true });
    expect(whole.deleted).toBe(1);
    // The whole history the service lists: from the retention horizon, a year and a day ago.
    expect(Date.parse(whole.window_after)).toBeLessThan(Date.now() - 366 * 86_400_000);
    expect(whole.mode).toBe('full');
    const metrics = (await get(running, '/metrics')).body;
    expect(metrics).toContain('tsync_runs_total{kind="live",mode="recent",outcome="ok"} 1');
    expect(metrics).toContain('tsync_runs_total{kind="live",mode="full",outcome="ok"} 1');
    await running.stop();
  });

  it('a refused key fails the job at once, without retries, with the reason in failedReason and /healthz', async () => {
    const { sim, prefix, db } = await setup({ preRecorded: 3, live: 3, ...SHORT });
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
    // /healthz fails naming the error, the key never in it.
    const health = await eventually(async () => {
      const answer = await get(running, '/healthz');
      return answer.status === 503 ? answer : undefined;
    }, 'a failing /healthz');
    const said = JSON.parse(health.body) as Record<string, unknown>;
    expect(said['redis']).toBe('ok');
    expect(said['reasons']).toEqual([
      expect.stringMatching(
        /^the last pre-recorded sync failed with an error no retry can fix \(AUTH\): the service refused the API key/,
      ),
    ]);
    expect(said['kinds']).toMatchObject({
      'pre-recorded': { last_outcome: 'failed', last_error_retryable: false },
    });
    expect(health.body).not.toContain('not-the-key');
    // The billing report of a mirror that never synced writes nothing (no month of zeros).
    const report = await eventually(async () => {
      const completed = await queue.getCompleted();
      return completed.find((j) => j.name === REPORT_JOB);
    }, 'the billing report job');
    expect(report.returnvalue).toMatchObject({ written: [] });
    expect(existsSync(join(dirname(db), 'reports'))).toBe(false);
  });
  it('a stop during the publish after a run keeps the dataset as it was and hands the job back; the next start publishes', async () => {
    const { sim, prefix, db } = await setup({ preRecorded: 3, live: 8, ...SHORT });
    const dir = join(dirname(db), 'published');
    const manifest = join(dir, '_manifest.json');
    // The stop comes as the publish starts, from the log line that announces it.
    let running: RunningWorker | undefined;
    let stopping: Promise<void> | undefined;
    let logged = '';
    const lines = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged += chunk.toString();
        if (running && chunk.toString().includes('publishing to')) stopping ??= running.stop();
        done();
      },
    });
    const base = options(sim, db, prefix, {
      kinds: ['live'],
      logger: createLogger('info', {}, { stream: lines }),
    });
    const publishing = { ...base, settings: { ...base.settings, publish: { dir, raw: false } } };
    running = await start(publishing);
    await eventually(() => (stopping ? true : undefined), 'a stop as the publish started');
    await stopping;

    expect(logged).toContain('the dataset in');
    expect(logged).toContain('was not refreshed: the run was interrupted');
    expect(logged).toContain('run interrupted after its last commit');
    expect(existsSync(manifest)).toBe(false);
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    const queue = createSyncQueue(redisUrl(), prefix);
    onCleanup(() => queue.close());
    const waiting = (await queue.getWaiting()).filter((j) => j.name === 'sync');
    expect(waiting.map((j) => [j.data, j.attemptsMade])).toEqual([
      [{ kind: 'live', mode: 'incremental' }, 0],
    ]);

    const again = await start({ ...publishing, logger: silentLogger });
    await eventually(succeeded(again, ['live']), 'the run handed back, run again');
    await again.stop();
    const tables = (
      JSON.parse(readFileSync(manifest, 'utf8')) as { tables: Record<string, { rows: number }> }
    ).tables;
    expect(tables['jobs']?.rows).toBe(8);
  });
});

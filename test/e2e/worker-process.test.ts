/**
 * The worker as operators run it: the built bin as a child process (build first: `npm test` does).
 * One worker per DuckDB file, a clean stop on SIGTERM mid-run, and recovery after SIGKILL mid-run.
 * The worker that picks up after a stopped or killed one runs in this process
 * (test/helpers/worker-in-process.ts): what it shows is the state the process left, not a process;
 * so does the second worker refused beside a running one, whose exit code and output are the test's.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { command as queryCommand } from '../../src/cli/commands/query.js';
import { command as runsCommand } from '../../src/cli/commands/runs.js';
import { JOB_KINDS, type JobKind } from '../../src/kinds.js';
import { createLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { writerLockPath } from '../../src/store/file/writer-lock.js';
import { checkpointKey } from '../../src/sync/checkpoints/redis-store.js';
import { createSyncQueue } from '../../src/worker/queue.js';
import { runCommand } from '../helpers/analytics-data.js';
import { runMain, shownLines } from '../helpers/cli.js';
import { actualFacts, expectedFacts } from '../helpers/mirror.js';
import { redisUrl, uniquePrefix } from '../helpers/redis.js';
import { tempDir } from '../helpers/tmp.js';
import { type Child, eventually, NO_REPORT, onCleanup, spawnCli, testRedis } from '../helpers/worker.js';
import { collect, options, start, succeeded } from '../helpers/worker-in-process.js';

interface Setup {
  readonly sim: Simulator;
  readonly prefix: string;
  readonly redis: Redis;
  readonly db: string;
  readonly env: Record<string, string>;
}

/** Jobs of each kind upstream, unless a test passes fewer. */
const JOBS_PER_KIND = 30;

/**
 * Enough pages, each delayed by the simulator, that a run is still going when the test signals it:
 * 30 jobs of each kind at 10 per page, 400 ms a page. Each page costs the sync CPU (a commit), the
 * delay none: few slow pages keep a run going as long as many quick ones. A test that needs no run
 * in progress passes fewer jobs: the worker syncs them at its start, work the test does not look at.
 */
async function setup(latencyMs = 400, jobsPerKind = JOBS_PER_KIND): Promise<Setup> {
  const sim = await startSimulator({
    preRecorded: jobsPerKind,
    live: jobsPerKind,
    utterancesPerJob: 2,
    wordsPerUtterance: 3,
    latencyMs,
  });
  onCleanup(() => sim.close());
  const prefix = uniquePrefix('worker-process');
  const redis = testRedis(prefix);
  const db = join(tempDir(), 'transcripts.duckdb');
  const env = {
    TSYNC_API_KEY: sim.apiKey,
    TSYNC_BASE_URL: sim.url,
    TSYNC_DB: db,
    REDIS_URL: redisUrl(),
    TSYNC_REDIS_PREFIX: prefix,
    TSYNC_PAGE_SIZE: '10',
    TSYNC_RATE_LIMIT: '10000',
    TSYNC_LOG_LEVEL: 'info',
  };
  return { sim, prefix, redis, db, env };
}

function startWorkerProcess(s: Setup, extra: readonly string[] = []): Child {
  return spawnCli(
    ['worker', '--metrics-port', '0', '--every', '1h', '--job-lock', '2s', ...NO_REPORT, ...extra],
    s.env,
  );
}

/**
 * A worker in this process with startWorkerProcess's settings (its page size, job lock and no
 * report run) on `kinds`, logging at info into the returned `log`, stopped once each kind of
 * `waitFor` has synced.
 */
async function syncInProcess(
  s: Setup,
  kinds: readonly JobKind[],
  waitFor: readonly JobKind[] = kinds,
): Promise<{ log: () => string }> {
  const log = collect();
  const base = options(s.sim, s.db, s.prefix);
  const running = await start({
    ...base,
    settings: { ...base.settings, pageSize: 10 },
    kinds,
    jobLockMs: 2_000,
    logger: createLogger('info', {}, { stream: log.stream }),
  });
  await eventually(succeeded(running, waitFor), `a successful run of ${waitFor.join(' and ')}`, 60_000);
  await running.stop();
  return { log: log.text };
}

async function until(probe: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits until the worker logged a successful run of both kinds (`done`: kinds already synced). */
async function bothKindsSynced(child: Child, done: readonly string[] = []): Promise<void> {
  const seen = new Set<string>(done);
  if (seen.size === 2) return;
  await child.waitForLog((line) => {
    if (line['msg'] !== 'sync finished') return false;
    for (const k of (line['kinds'] as { kind: string; outcome: string }[]) ?? [])
      if (k.outcome === 'ok') seen.add(k.kind);
    return seen.size === 2;
  }, 60_000);
}

async function expectMirrorOf(s: Setup): Promise<void> {
  const facts = await actualFacts(s.db);
  const expected = expectedFacts(s.sim.data.all());
  expect(facts.jobs).toEqual(expected.jobs);
  expect(facts.utterances).toBe(expected.utterances);
  expect(facts.words).toBe(expected.words);
  expect(facts.duplicateJobs).toBe(0);
  expect(facts.duplicateWordKeys).toBe(0);
}

/** The outcome of each run in `sync_runs`, newest first. */
async function outcomes(s: Setup): Promise<string[]> {
  const runs = await runCommand(runsCommand, ['--json', '--db', s.db]);
  expect(runs.error).toBeUndefined();
  return (JSON.parse(runs.stdout) as { outcome: string }[]).map((r) => r.outcome);
}

describe('worker process', () => {
  it('SIGTERM mid-run commits, checkpoints, hands the job back and exits 0; the next start finishes the sync', async () => {
    const s = await setup();
    const worker = startWorkerProcess(s, ['--kind', 'pre-recorded']);
    // Mid-walk: a few of the slow pages served, the rest still to come.
    const pagesServed = () =>
      s.sim.log.filter((r) => r.status === 200 && new URLSearchParams(r.query).get('limit') === '10').length;
    await until(async () => pagesServed() >= 2, 'two pages served');
    // Time for the worker to receive them; the next pages take the simulator's 400 ms.
    await delay(150);

    worker.process.kill('SIGTERM');
    expect(await worker.exited, worker.stderr()).toBe(0);
    expect(worker.stderr()).toContain('run interrupted after its last commit');
    // The requests the shutdown aborted are no failures: nothing at warn or above says so.
    const loud = worker
      .stderr()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .filter((l) => l.level >= 40);
    expect(loud).toEqual([]);
    expect(await s.redis.exists(checkpointKey(s.prefix, 'pre-recorded'))).toBe(1);
    expect(existsSync(writerLockPath(s.db))).toBe(false);
    expect(existsSync(writerLockPath(s.db, 'worker'))).toBe(false);
    const queue = createSyncQueue(redisUrl(), s.prefix);
    onCleanup(() => queue.close());
    const waiting = (await queue.getWaiting()).filter((j) => j.name === 'sync');
    expect(waiting.map((j) => j.data)).toEqual([{ kind: 'pre-recorded', mode: 'incremental' }]);
    expect(waiting[0]?.attemptsMade).toBe(0);
    const partial = Object.keys((await actualFacts(s.db)).jobs).length;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(JOBS_PER_KIND);

    // The slow pages only had to keep the first run going until the signal.
    s.sim.setLatency(0);
    await syncInProcess(s, ['pre-recorded']);
    const facts = await actualFacts(s.db);
    expect(Object.keys(facts.jobs)).toHaveLength(JOBS_PER_KIND);
    expect(facts.duplicateJobs).toBe(0);
  });

  it('worker --publish answers queries during a run and keeps the dataset fresh after each run; a second worker on the file is refused with one line naming the holder, whatever its Redis prefix', async () => {
    const s = await setup();
    const dir = join(tempDir(), 'published');
    const worker = startWorkerProcess(s, ['--publish', dir]);
    await until(async () => existsSync(`${s.db}.sock`), 'a run serving reads');

    const during = await runCommand(queryCommand, [
      'SELECT count(*) AS n FROM jobs',
      '--db',
      s.db,
      '--lock-wait',
      '0s',
    ]);
    expect(during.error).toBeUndefined();

    const holder = `transcript-sync: ${resolve(s.db)} already has a worker: pid ${worker.process.pid} (transcript-sync worker) on host`;
    const second = await runMain(['worker', '--metrics-port', '0', '--every', '1h', ...NO_REPORT], {
      ...s.env,
      TSYNC_REDIS_PREFIX: uniquePrefix('other-prefix'),
    });
    expect(second.code).toBe(1);
    const lines = shownLines(second.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(holder);
    expect(lines[0]).toContain('run one worker per file');

    // Read during the run: the rest of it may go at full speed.
    s.sim.setLatency(0);
    await bothKindsSynced(worker);
    const manifest = JSON.parse(readFileSync(join(dir, '_manifest.json'), 'utf8')) as {
      tables: Record<string, { rows: number }>;
    };
    expect(manifest.tables['jobs']?.rows).toBe(2 * JOBS_PER_KIND);
    worker.process.kill('SIGTERM');
    expect(await worker.exited, worker.stderr()).toBe(0);
    expect(existsSync(`${s.db}.sock`)).toBe(false);
  });

  it('a stop that outlasts --shutdown-timeout exits 1 with a message', async () => {
    const s = await setup();
    const worker = startWorkerProcess(s, ['--kind', 'live', '--shutdown-timeout', '1ms']);
    await worker.waitForLog((line) => line['msg'] === 'job started');
    worker.process.kill('SIGTERM');
    expect(await worker.exited).toBe(1);
    expect(worker.stderr()).toContain('worker did not stop within 1 ms; exiting now');
  });

  it('a worker killed with SIGKILL mid-run and restarted converges: nothing lost, nothing doubled', async () => {
    const s = await setup();
    const killed = startWorkerProcess(s);
    await until(
      async () => (await s.redis.exists(checkpointKey(s.prefix, 'pre-recorded'))) === 1,
      'a first checkpoint',
    );
    // Mid-walk of the live kind: its run's row is open ('running'), and the kind that ran first
    // (pre-recorded, as a rule) has synced.
    const livePages = () =>
      s.sim.log.filter(
        (r) =>
          r.status === 200 && r.path === '/v2/live' && new URLSearchParams(r.query).get('limit') === '10',
      ).length;
    await until(async () => livePages() >= 1, 'a page of the live walk');
    killed.process.kill('SIGKILL');
    expect(await killed.exited).toBe('SIGKILL');
    const synced = killed
      .stderr()
      .split('\n')
      .filter((line) => line.includes('"msg":"sync finished"'))
      .flatMap((line) => (JSON.parse(line) as { kinds: { kind: string; outcome: string }[] }).kinds)
      .filter((k) => k.outcome === 'ok')
      .map((k) => k.kind);
    // The slow pages only had to keep the first run going until the kill.
    s.sim.setLatency(0);

    // The dead worker's lock is taken over at once (same host, pid gone); its job comes back
    // once BullMQ's job lock (--job-lock 2s) expires.
    const restarted = await syncInProcess(
      s,
      JOB_KINDS,
      JOB_KINDS.filter((kind) => !synced.includes(kind)),
    );
    expect(restarted.log()).toContain('took over a stale database lock');
    await expectMirrorOf(s);
    // The killed run is closed, not left running for good.
    const after = await outcomes(s);
    expect(after).toContain('abandoned');
    expect(after).not.toContain('running');
  });
});

/**
 * The worker in the test's own process (worker.test.ts, worker-reports.test.ts): a simulator, a
 * Redis prefix and a DuckDB file per test, the options a worker starts with, and waits on what it
 * does. Everything started is stopped after the test (./cleanup.ts).
 */
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { JOBS } from '../../jobs/index.js';
import { resolveAll } from '../../src/config/resolve.js';
import { billingFileSettings, syncDefaults } from '../../src/config/sync-defaults.js';
import { JOB_KINDS, type JobKind } from '../../src/kinds.js';
import { silentLogger } from '../../src/log.js';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';
import { type RunningWorker, startWorker, type WorkerOptions } from '../../src/worker/runtime.js';
import { onCleanup } from './cleanup.js';
import { migratedDb } from './migrated-db.js';
import { redisUrl, uniquePrefix } from './redis.js';
import { testRedis } from './worker.js';

/** The config's defaults a worker starts with; each job picks its kind, mode, window and checkpoints. */
const {
  kinds: _kinds,
  full: _full,
  checkpoints: _checkpoints,
  since: _since,
  reconcileWindow: _window,
  ...workerDefaults
} = syncDefaults();

export const HOUR = 3_600_000;

/**
 * The billing report's schedule unless a test asks for one: a cron of once a year, which does not
 * run as the worker starts (an interval does), as NO_REPORT keeps it out of a worker process. A
 * test of the report passes `reportEvery: REPORT_AT_START`.
 */
export const NO_REPORT_RUN = { pattern: '0 0 1 1 *' } as const;
/** The worker's default schedule of the billing report: daily, and once as it starts. */
export const REPORT_AT_START = { every: 24 * HOUR } as const;

export async function setup(simOptions: SimulatorOptions = {}) {
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
  const db = await migratedDb('transcripts.duckdb');
  return { sim, prefix, redis, db };
}

export function options(
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
      reconcileWindow: resolveAll(['recentWindow'], {}, {}).recentWindow,
      reportFiles: billingFileSettings(),
    },
    kinds: JOB_KINDS,
    every: { every: HOUR },
    fullEvery: { every: 24 * HOUR },
    reportEvery: NO_REPORT_RUN,
    metricsHost: '127.0.0.1',
    metricsPort: 0,
    staleAfterMs: HOUR,
    jobLockMs: 5_000,
    logger: silentLogger,
    ...overrides,
  };
}

/** `opts` with report runs that (re)write the complete days and months `window` back (--report-window). */
export function reportingWithin(window: string, opts: WorkerOptions): WorkerOptions {
  const reportFiles = billingFileSettings({}, { TSYNC_REPORT_WINDOW: window });
  return { ...opts, settings: { ...opts.settings, reportFiles } };
}

export async function start(opts: WorkerOptions): Promise<RunningWorker> {
  const running = await startWorker(opts);
  onCleanup(() => running.stop());
  return running;
}

export const succeeded = (running: RunningWorker, kinds: readonly JobKind[]) => () =>
  kinds.every((k) => running.metrics.lastSuccess(k) !== undefined) || undefined;

export async function get(running: RunningWorker, path: string) {
  const response = await fetch(`http://127.0.0.1:${running.metricsPort}${path}`);
  return { status: response.status, body: await response.text() };
}

export function collect(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

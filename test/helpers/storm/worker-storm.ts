/**
 * The worker variant of the storm: `transcript-sync worker` processes (scheduled incremental runs
 * every second, full ones every few seconds) are killed with SIGKILL at seeded points while the
 * simulator changes and fails, and restarted; sometimes one is stopped with SIGTERM instead. Then
 * the quiet: one worker that is left alone runs an enqueued incremental and an enqueued --full
 * sync, and the file is compared with the simulator. The soak (test/e2e/soak.test.ts) uses it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Rng, type Simulator } from '../../../src/simulator/index.js';
import { createSyncQueue } from '../../../src/worker/queue.js';
import { type SyncChild, startFaults, startTranscriptSync, UpstreamChaos, waitOrExit } from './chaos.js';
import { mirrorDifferences } from './mirror-exact.js';
import type { SettleStep } from './storm.js';

export interface WorkerStormOptions {
  readonly sim: Simulator;
  readonly db: string;
  readonly seed: number;
  readonly rounds: number;
  readonly redisUrl: string;
  /** Redis prefix of this storm alone; the caller deletes its keys after. */
  readonly prefix: string;
  /** A worker is killed once the simulator answered this many of its requests (drawn in the range). */
  readonly killAfterRequests: readonly [number, number];
  readonly log?: (line: string) => void;
}

export interface WorkerStormReport {
  readonly killed: number;
  readonly stopped: number;
  readonly bad: string[];
  readonly chaos: UpstreamChaos;
}

/** Most time a worker round may last before it is killed anyway, ms. */
const ROUND_LIMIT_MS = 60_000;

function workerEnv(options: WorkerStormOptions): Record<string, string> {
  const { sim, redisUrl, prefix, db } = options;
  return {
    TSYNC_BASE_URL: sim.url,
    TSYNC_API_KEY: sim.apiKey,
    TSYNC_PAGE_SIZE: '10',
    TSYNC_RATE_LIMIT: '1000',
    TSYNC_DB: db,
    REDIS_URL: redisUrl,
    TSYNC_REDIS_PREFIX: prefix,
  };
}

function startWorker(
  options: WorkerStormOptions,
  every: string,
  fullEvery: string,
  more: readonly string[] = [],
): SyncChild {
  // A short job lock: the job of a killed worker goes back to the queue within seconds.
  const args = [
    'worker',
    '--every',
    every,
    '--full-every',
    fullEvery,
    '--job-lock',
    '2s',
    '--metrics-port',
    '0',
    ...more,
  ];
  return startTranscriptSync(args, workerEnv(options));
}

export async function runWorkerStorm(options: WorkerStormOptions): Promise<WorkerStormReport> {
  const { sim, seed } = options;
  const rng = new Rng(seed ^ 0x3017);
  const chaos = new UpstreamChaos(sim, seed);
  startFaults(sim, seed);
  chaos.start();
  const report = { killed: 0, stopped: 0, bad: [] as string[], chaos };
  try {
    for (let round = 0; round < options.rounds; round++) {
      const worker = startWorker(options, '1s', `${rng.int(3, 10)}s`);
      const requests = rng.int(options.killAfterRequests[0], options.killAfterRequests[1]);
      const start = sim.log.length;
      const deadline = Date.now() + ROUND_LIMIT_MS;
      let ended = false;
      void worker.done.then(() => (ended = true));
      while (!ended && sim.log.length - start < requests && Date.now() < deadline) await sleep(5);
      const graceful = rng.chance(0.2);
      const endedOnItsOwn = ended;
      worker.child.kill(graceful ? 'SIGTERM' : 'SIGKILL');
      const result = await worker.done;
      options.log?.(
        `worker round ${round}: ${graceful ? 'SIGTERM' : 'SIGKILL'} after ${requests} requests: ${result.signal ?? `exit ${result.code}`}`,
      );
      if (endedOnItsOwn || (graceful && result.code !== 0)) {
        report.bad.push(
          `worker round ${round} ended ${endedOnItsOwn ? 'on its own' : 'badly on SIGTERM'} (${result.code ?? result.signal}): ${result.stderr.slice(-2_000)}`,
        );
      }
      if (graceful) report.stopped += 1;
      else report.killed += 1;
    }
  } finally {
    chaos.stop();
    sim.faults.clear();
  }
  return report;
}

/** Resolves once a worker listens on the storm's queue; throws when `worker` ends first. */
async function untilListening(options: WorkerStormOptions, worker: SyncChild): Promise<void> {
  const queue = createSyncQueue(options.redisUrl, options.prefix);
  try {
    while ((await queue.getWorkers()).length === 0) {
      if (await waitOrExit(worker, 50))
        throw new Error(`the worker ended before it listened: ${(await worker.done).stderr}`);
    }
  } finally {
    await queue.close();
  }
}

/** One worker left alone; an enqueued incremental run, then an enqueued --full run, each compared. */
export async function settleWorker(
  options: WorkerStormOptions,
  deleted: ReadonlySet<string>,
): Promise<{ incremental: SettleStep; full: SettleStep; stop: SettleStep }> {
  const { sim, db } = options;
  // The storm may have deleted more than --max-delete-share of a kind; those deletions are real, so
  // the worker's --full run is told so, as the CLI's settle step tells its own (./storm.ts).
  const worker = startWorker(options, '1h', '1d', ['--max-delete-share', '1']);
  try {
    // `enqueue --wait` refuses when no worker listens yet: wait until this one does.
    await untilListening(options, worker);
    const step = async (args: string[], mode: 'exact' | 'incremental'): Promise<SettleStep> => {
      const { code, stderr, stdout } = await startTranscriptSync(
        ['enqueue', '--wait', '--timeout', '5m', ...args],
        workerEnv(options),
      ).done;
      // The worker opens the file only during a run, so it can be read between two.
      return {
        code,
        stderr: `${stdout}${stderr}`,
        differences: await mirrorDifferences(db, sim.data.all(), deleted, mode),
      };
    };
    const incremental = await step([], 'incremental');
    const full = await step(['--full'], 'exact');
    worker.child.kill('SIGTERM');
    const stopped = await worker.done;
    return { incremental, full, stop: { code: stopped.code, stderr: stopped.stderr, differences: [] } };
  } finally {
    if (!(await waitOrExit(worker, 0))) worker.child.kill('SIGKILL');
  }
}

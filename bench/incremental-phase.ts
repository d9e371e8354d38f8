/**
 * "Incremental at history H": back-fill H jobs, then measure what the runs a worker makes
 * every few minutes cost the disk: an idle run, a run that finds one new job, one that finds 1% of
 * the jobs changed (pending jobs that completed upstream), a reconcile of the recent window, and a
 * reconcile of the whole history. Each run is a child process of its own, so its `write_bytes` is
 * the sync's alone, the final checkpoint at close included.
 */
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchOptions } from './args.js';
import { runTask, type TaskOutput } from './child-output.js';
import { incrementalDataset } from './datasets.js';
import type { IncrementalFigures, IncrementalRun, IncrementalStep } from './figures.js';
import type { Say } from './phase-kit.js';
import { SimProcess } from './sim-process.js';
import type { SyncTaskOptions, SyncTaskResult } from './task-sync.js';

/** Histories of the phase at `--scale 1`, jobs. */
export const HISTORIES = [1_000, 10_000] as const;
/** The recent window of the cheap reconcile, ms: a week, longer than the worker's default (1d). */
export const RECENT_WINDOW_MS = 7 * 86_400_000;
/** When the pending jobs of the "1% changed" step were created: inside the 15-minute lookback, ms ago. */
const PENDING_AGO_MS = 5 * 60_000;

export async function runIncrementalPhase(
  options: BenchOptions,
  dir: string,
  say: Say,
): Promise<IncrementalFigures> {
  const runs: IncrementalRun[] = [];
  for (const history of HISTORIES) {
    const jobs = Math.max(4, Math.round(history * options.scale));
    runs.push(await atHistory(jobs, options, dir, say));
  }
  return { runs };
}

/** One version of the sync measured in the phase: this checkout, or the --baseline one. */
interface Variant {
  readonly checkout: string | undefined;
  readonly db: string;
  readonly steps: IncrementalStep[];
  fileBytes: number;
  backfillMs: number;
  backfillWriteBytes: number;
}

async function atHistory(
  jobs: number,
  options: BenchOptions,
  dir: string,
  say: Say,
): Promise<IncrementalRun> {
  say(`incremental: generating ${jobs} jobs`);
  const sim = await SimProcess.start(incrementalDataset(jobs, options.smoke));
  const variant = (checkout: string | undefined, name: string): Variant => ({
    checkout,
    db: join(dir, `incremental-${jobs}-${name}.duckdb`),
    steps: [],
    fileBytes: 0,
    backfillMs: 0,
    backfillWriteBytes: 0,
  });
  // The baseline runs first at each step, then this checkout: same upstream, same changes.
  const variants = [
    ...(options.baseline ? [variant(options.baseline, 'baseline')] : []),
    variant(undefined, 'this'),
  ];
  const sync = (v: Variant, extra: Partial<SyncTaskOptions> = {}): SyncTaskOptions => ({
    baseUrl: sim.url,
    apiKey: sim.apiKey,
    db: v.db,
    pageSize: options.pageSize,
    rateLimit: 1_000,
    concurrency: options.concurrency,
    ...extra,
  });
  const label = (v: Variant) => `H=${jobs}${v.checkout ? ' (baseline)' : ''}`;
  try {
    // 1% of the history, queued now and completed before the "1% changed" run.
    const changing = await sim.addJobs(Math.max(1, Math.round(jobs / 100)), 'queued', PENDING_AGO_MS);
    const jsonBytes = await sim.jsonBytes();
    for (const v of variants) {
      const backfill = await runTask<SyncTaskResult>('sync', sync(v), undefined, v.checkout);
      v.fileBytes = statSync(v.db).size;
      v.backfillMs = backfill.result.wallMs;
      v.backfillWriteBytes = backfill.writeBytes;
      say(
        `incremental ${label(v)}: backfill ${(v.backfillMs / 1_000).toFixed(1)} s, file ${(v.fileBytes / 1e6).toFixed(0)} MB for ${(jsonBytes / 1e6).toFixed(0)} MB of JSON`,
      );
    }
    const measure = async (name: string, extra?: Partial<SyncTaskOptions>) => {
      for (const v of variants) {
        const mark = await sim.requestCount();
        const run = await runTask<SyncTaskResult>('sync', sync(v, extra), undefined, v.checkout);
        const requests = (await sim.requestsSince(mark)).length;
        const last = step(name, run, requests);
        v.steps.push(last);
        say(
          `incremental ${label(v)} ${name}: ${(last.writeBytes / 1e6).toFixed(1)} MB written, ${last.wallMs.toFixed(0)} ms, ${requests} requests`,
        );
      }
    };
    await measure('idle');
    await sim.addJobs(1, 'done', 60_000);
    await measure('one new job');
    await sim.completeJobs(changing);
    await measure('1% changed');
    await measure('reconcile, recent window', { full: true, reconcileWindow: RECENT_WINDOW_MS });
    // Deleted upstream long ago: only the whole-history reconcile can find it.
    await sim.deleteOldest(1);
    await measure('reconcile, whole history', { full: true });
    const figures = (v: Variant) => ({
      fileBytes: v.fileBytes,
      backfillMs: v.backfillMs,
      backfillWriteBytes: v.backfillWriteBytes,
      steps: v.steps,
    });
    const base = options.baseline ? variants[0] : undefined;
    const self = variants.at(-1)!;
    return {
      history: jobs,
      jsonBytes,
      ...figures(self),
      ...(base ? { baseline: figures(base) } : {}),
    };
  } finally {
    await sim.close();
    for (const v of variants) for (const file of [v.db, `${v.db}.wal`]) rmSync(file, { force: true });
  }
}

function step(name: string, run: TaskOutput<SyncTaskResult>, requests: number): IncrementalStep {
  const kinds = run.result.kinds;
  return {
    name,
    wallMs: run.result.wallMs,
    writeBytes: run.writeBytes,
    requests,
    jobsFetched: kinds.reduce((n, k) => n + k.jobsFetched, 0),
    changed: kinds.reduce((n, k) => n + k.inserted + k.updated, 0),
    deleted: kinds.reduce((n, k) => n + k.deleted, 0),
  };
}

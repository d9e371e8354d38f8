/**
 * One bench run: every phase against its simulator child, each measured in a child process of its
 * own. Backfill and floors run interleaved (`--repeat` times) on the same records, so a noisy
 * neighbour slows them alike and their ratio holds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchOptions } from './args.js';
import { runBudgetPhase } from './budget-phase.js';
import { runTask, type TaskOutput } from './child-output.js';
import { datasets } from './datasets.js';
import type { BackfillFigures, Figures, IdleFigures, NaiveFigures } from './figures.js';
import { runIncrementalPhase } from './incremental-phase.js';
import { runLatencyPhase } from './latency-phase.js';
import { type RowCounts, totalRows } from './record-counts.js';
import type { DatasetFile } from './sim-child.js';
import { SimProcess } from './sim-process.js';
import type { FloorAOptions, FloorAResult } from './task-floor-a.js';
import type { FloorBOptions, FloorBResult } from './task-floor-b.js';
import type { NaiveOptions, NaiveResult } from './task-naive.js';
import type { SyncTaskOptions, SyncTaskResult } from './task-sync.js';

/** Requests per second of the client's limiter in the backfill: high, so the figure is the sync's own. */
const BACKFILL_RATE_LIMIT = 1_000;

export type Say = (line: string) => void;

function removeDb(path: string): void {
  for (const file of [path, `${path}.wal`]) rmSync(file, { force: true });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function syncOptions(sim: SimProcess, db: string, options: BenchOptions): SyncTaskOptions {
  return {
    baseUrl: sim.url,
    apiKey: sim.apiKey,
    db,
    pageSize: options.pageSize,
    rateLimit: BACKFILL_RATE_LIMIT,
    concurrency: options.concurrency,
    ...(options.memory === undefined ? {} : { memory: options.memory }),
  };
}

function backfillFigures(runs: readonly TaskOutput<SyncTaskResult>[]): BackfillFigures {
  const wallMs = median(runs.map((run) => run.result.wallMs));
  const last = runs.at(-1)!;
  const words = last.result.kinds.reduce((n, k) => n + k.words, 0);
  return {
    wallMs,
    runsMs: runs.map((run) => run.result.wallMs),
    wordsPerSecond: words / (wallMs / 1_000),
    peakRssMb: Math.max(...runs.map((run) => run.peakRssMb)),
    peakHeapMb: Math.max(...runs.map((run) => run.memory.heapTotalMb)),
    cpuMs: median(runs.map((run) => run.cpuMs)),
    words,
    jobs: last.result.kinds.reduce((n, k) => n + k.inserted, 0),
    requests: last.result.kinds.reduce((n, k) => n + k.requests, 0),
    pages: last.result.kinds.reduce((n, k) => n + k.pages, 0),
  };
}

async function idleRun(sim: SimProcess, db: string, options: BenchOptions): Promise<IdleFigures> {
  const mark = await sim.requestCount();
  const run = await runTask<SyncTaskResult>('sync', syncOptions(sim, db, options));
  const requests = await sim.requestsSince(mark);
  const perKind = (kind: string) => requests.filter((r) => r.path === `/v2/${kind}`).length;
  return {
    wallMs: run.result.wallMs,
    requests: { 'pre-recorded': perKind('pre-recorded'), live: perKind('live') },
    pendingRechecked: Object.fromEntries(run.result.kinds.map((k) => [k.kind, k.pendingRechecked])),
    changed: run.result.kinds.reduce((n, k) => n + k.inserted + k.updated, 0),
  };
}

function naiveFigures(run: NaiveResult, dataset: RowCounts, backfillWords: number): NaiveFigures {
  const extrapolatedMs = run.wallMs * (totalRows(dataset) / Math.max(1, totalRows(run.counts)));
  return {
    subsetJobs: run.counts.jobs,
    subsetRows: run.inserted,
    subsetMs: run.wallMs,
    extrapolatedMs,
    wordsPerSecond: (backfillWords || dataset.words) / (extrapolatedMs / 1_000),
  };
}

/** Backfill, floors A and B, the idle run and the naive loader, all on the main dataset. */
async function mainPhases(options: BenchOptions, dir: string, say: Say, figures: Figures): Promise<void> {
  const sets = datasets(options.scale);
  const want = options.phases;
  const backfill = want.has('backfill') || want.has('idle') || want.has('memory');
  say(`generating ${sets.main.preRecorded + sets.main.live} jobs in the simulator child`);
  const sim = await SimProcess.start(sets.main);
  try {
    const ndjson = join(dir, 'records.ndjson');
    const dataset: DatasetFile = await sim.writeNdjson(ndjson);
    figures.dataset = dataset;
    say(
      `dataset: ${dataset.jobs} jobs, ${dataset.utterances} utterances, ${dataset.words} words, ${(dataset.bytes / 1e6).toFixed(0)} MB of JSON`,
    );
    const syncs: TaskOutput<SyncTaskResult>[] = [];
    const floorsA: TaskOutput<FloorAResult>[] = [];
    const floorsB: TaskOutput<FloorBResult>[] = [];
    let db = '';
    const profile = options.cpuProf ? options.outDir : undefined;
    for (let round = 1; round <= options.repeat; round++) {
      if (want.has('floor-b')) {
        const floorB: FloorBOptions = {
          baseUrl: sim.url,
          apiKey: sim.apiKey,
          pageSize: options.pageSize,
          rateLimit: BACKFILL_RATE_LIMIT,
        };
        floorsB.push(await runTask<FloorBResult>('floor-b', floorB, profile));
        say(`floor B (transfer) run ${round}: ${(floorsB.at(-1)!.result.wallMs / 1_000).toFixed(2)} s`);
      }
      if (backfill) {
        // Only the last backfill's file is kept (the idle run needs it): a file left behind would
        // still be written back to disk during the next measurement.
        if (db) removeDb(db);
        db = join(dir, `backfill-${round}.duckdb`);
        syncs.push(await runTask<SyncTaskResult>('sync', syncOptions(sim, db, options), profile));
        say(`backfill run ${round}: ${(syncs.at(-1)!.result.wallMs / 1_000).toFixed(2)} s`);
      }
      if (want.has('floor-a')) {
        const floorA: FloorAOptions = { ndjson, db: join(dir, `floor-a-${round}.duckdb`) };
        floorsA.push(await runTask<FloorAResult>('floor-a', floorA, profile));
        removeDb(floorA.db);
        say(`floor A (DuckDB ingest) run ${round}: ${(floorsA.at(-1)!.result.wallMs / 1_000).toFixed(2)} s`);
      }
    }
    if (syncs.length > 0) figures.backfill = backfillFigures(syncs);
    if (floorsA.length > 0) {
      const wallMs = median(floorsA.map((run) => run.result.wallMs));
      figures.floorA = {
        wallMs,
        runsMs: floorsA.map((run) => run.result.wallMs),
        wordsPerSecond: dataset.words / (wallMs / 1_000),
        peakRssMb: Math.max(...floorsA.map((run) => run.peakRssMb)),
        steps: floorsA.at(-1)!.result.steps,
      };
    }
    if (floorsB.length > 0) {
      const wallMs = median(floorsB.map((run) => run.result.wallMs));
      const last = floorsB.at(-1)!.result;
      figures.floorB = {
        wallMs,
        runsMs: floorsB.map((run) => run.result.wallMs),
        megabytesPerSecond: last.bytes / 1e6 / (wallMs / 1_000),
        peakRssMb: Math.max(...floorsB.map((run) => run.peakRssMb)),
        peakHeapMb: Math.max(...floorsB.map((run) => run.memory.heapTotalMb)),
        pages: last.pages,
      };
    }
    if (want.has('idle')) {
      figures.idle = await idleRun(sim, db, options);
      say(`idle run: ${figures.idle.wallMs.toFixed(0)} ms`);
    }
    if (want.has('naive')) {
      const naive: NaiveOptions = { ndjson, db: join(dir, 'naive.duckdb'), jobs: sets.naiveJobs };
      const run = await runTask<NaiveResult>('naive', naive);
      figures.naive = naiveFigures(run.result, dataset, figures.backfill?.words ?? 0);
      say(`naive loader: ${sets.naiveJobs} jobs in ${(run.result.wallMs / 1_000).toFixed(2)} s`);
    }
  } finally {
    await sim.close();
  }
}

async function memoryPhase(options: BenchOptions, dir: string, say: Say, figures: Figures): Promise<void> {
  const sets = datasets(options.scale);
  say(`generating ${sets.tenfold.preRecorded + sets.tenfold.live} jobs for the 10x memory run`);
  const sim = await SimProcess.start(sets.tenfold);
  try {
    const run = await runTask<SyncTaskResult>('sync', syncOptions(sim, join(dir, 'tenfold.duckdb'), options));
    const oneX = figures.backfill?.peakRssMb ?? Number.NaN;
    figures.memory = {
      rss1xMb: oneX,
      rss10xMb: run.peakRssMb,
      heap10xMb: run.memory.heapTotalMb,
      ratio: run.peakRssMb / oneX,
      jobs10x: run.result.kinds.reduce((n, k) => n + k.inserted, 0),
      words10x: run.result.kinds.reduce((n, k) => n + k.words, 0),
      wall10xMs: run.result.wallMs,
    };
    say(
      `10x backfill: ${(run.result.wallMs / 1_000).toFixed(2)} s, peak RSS ${run.peakRssMb.toFixed(0)} MiB`,
    );
  } finally {
    await sim.close();
  }
}

export async function runBench(options: BenchOptions, say: Say): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), 'tsync-bench-'));
  const figures: Figures = { options: { ...options, phases: [...options.phases] } };
  try {
    const main = ['floor-b', 'backfill', 'idle', 'floor-a', 'naive', 'memory'] as const;
    if (main.some((phase) => options.phases.has(phase))) await mainPhases(options, dir, say, figures);
    if (options.phases.has('memory')) await memoryPhase(options, dir, say, figures);
    if (options.phases.has('latency')) figures.latency = await runLatencyPhase(options, dir, say);
    if (options.phases.has('budget')) figures.budget = await runBudgetPhase(options, dir, say);
    if (options.phases.has('incremental')) figures.incremental = await runIncrementalPhase(options, dir, say);
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

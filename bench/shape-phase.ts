/**
 * The account shapes: a backfill and its floors on each shape of `--shapes`, `--repeat` rounds
 * alternating shape by shape and task by task (floor B, backfill, floor A, floor A bounded), each
 * task a child of its own and each shape its own simulator child, so a noisy neighbour slows them
 * alike and their ratios hold. The first shape then serves the idle run and the naive loader.
 */
import { join } from 'node:path';
import type { BenchOptions } from './args.js';
import { runTask, runTaskInChild, type TaskOutput } from './child-output.js';
import { datasets, type Shape } from './datasets.js';
import type {
  BackfillFigures,
  Figures,
  FloorAFigures,
  FloorBFigures,
  IdleFigures,
  NaiveFigures,
  ShapeFigures,
} from './figures.js';
import { cutNdjson } from './ndjson-batches.js';
import { median, removeDb, type Say, simCpuMs, syncOptions } from './phase-kit.js';
import { type RowCounts, totalRows } from './record-counts.js';
import { SimProcess } from './sim-process.js';
import type { DatasetFile } from './sim-service.js';
import type { FloorABoundedOptions, FloorAOptions, FloorAResult } from './task-floor-a.js';
import type { FloorBOptions, FloorBResult } from './task-floor-b.js';
import type { NaiveOptions, NaiveResult } from './task-naive.js';
import type { SyncTaskResult } from './task-sync.js';

/** A measured task and the simulator's CPU time meanwhile. */
interface Measured<R> {
  readonly run: TaskOutput<R>;
  readonly simCpuMs: number;
}

async function measured<R>(sim: SimProcess, task: () => Promise<TaskOutput<R>>): Promise<Measured<R>> {
  const before = await sim.usage();
  const run = await task();
  return { run, simCpuMs: simCpuMs(before, await sim.usage()) };
}

function backfillFigures(runs: readonly Measured<SyncTaskResult>[]): BackfillFigures {
  const wallMs = median(runs.map(({ run }) => run.result.wallMs));
  const last = runs.at(-1)!.run;
  const words = last.result.kinds.reduce((n, k) => n + k.words, 0);
  return {
    wallMs,
    runsMs: runs.map(({ run }) => run.result.wallMs),
    wordsPerSecond: words / (wallMs / 1_000),
    peakRssMb: Math.max(...runs.map(({ run }) => run.peakRssMb)),
    peakHeapMb: Math.max(...runs.map(({ run }) => run.memory.heapTotalMb)),
    cpuMs: median(runs.map(({ run }) => run.cpuMs)),
    simCpuMs: median(runs.map((m) => m.simCpuMs)),
    words,
    jobs: last.result.kinds.reduce((n, k) => n + k.inserted, 0),
    requests: last.result.kinds.reduce((n, k) => n + k.requests, 0),
    pages: last.result.kinds.reduce((n, k) => n + k.pages, 0),
  };
}

function floorAFigures(runs: readonly TaskOutput<FloorAResult>[], words: number): FloorAFigures {
  const wallMs = median(runs.map((run) => run.result.wallMs));
  return {
    wallMs,
    runsMs: runs.map((run) => run.result.wallMs),
    wordsPerSecond: words / (wallMs / 1_000),
    peakRssMb: Math.max(...runs.map((run) => run.peakRssMb)),
    cpuMs: median(runs.map((run) => run.cpuMs)),
    transactions: runs.at(-1)!.result.transactions,
    steps: runs.at(-1)!.result.steps,
  };
}

function floorBFigures(runs: readonly Measured<FloorBResult>[]): FloorBFigures {
  const wallMs = median(runs.map(({ run }) => run.result.wallMs));
  const last = runs.at(-1)!.run.result;
  return {
    wallMs,
    runsMs: runs.map(({ run }) => run.result.wallMs),
    megabytesPerSecond: last.bytes / 1e6 / (wallMs / 1_000),
    peakRssMb: Math.max(...runs.map(({ run }) => run.peakRssMb)),
    peakHeapMb: Math.max(...runs.map(({ run }) => run.memory.heapTotalMb)),
    cpuMs: median(runs.map(({ run }) => run.cpuMs)),
    simCpuMs: median(runs.map((m) => m.simCpuMs)),
    pages: last.pages,
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

/** One shape's simulator child, its records as NDJSON and the runs measured on it so far. */
interface ShapeRuns {
  readonly shape: Shape;
  readonly sim: SimProcess;
  readonly ndjson: string;
  readonly dataset: DatasetFile;
  readonly syncs: Measured<SyncTaskResult>[];
  readonly floorsA: TaskOutput<FloorAResult>[];
  readonly floorsABounded: TaskOutput<FloorAResult>[];
  readonly floorsB: Measured<FloorBResult>[];
  /** The file of the last backfill (the idle run's), '' before the first. */
  db: string;
  /** The records cut for floor A bounded, once its first round asks. */
  batches?: string[];
}

/**
 * Bytes of served JSON a shape's simulator keeps: every shape's whole listing at `--scale 1`, so
 * that, warmed before the first round, the simulator answers from memory and its CPU does not
 * compete with the task measured for the machine's cores, as a remote service's would not.
 */
const SHAPE_CACHE_BYTES = 1024 * 1024 * 1024;

async function startShape(shape: Shape, dir: string, say: Say): Promise<ShapeRuns> {
  const sim = await SimProcess.start({ ...shape.sim, cacheBytes: SHAPE_CACHE_BYTES });
  try {
    const ndjson = join(dir, `records-${shape.name}.ndjson`);
    const dataset = await sim.writeNdjson(ndjson);
    await sim.warm();
    const served =
      dataset.bytes <= SHAPE_CACHE_BYTES
        ? 'served from memory'
        : 'more than the simulator keeps: built per request';
    say(
      `${shape.name}: ${dataset.jobs} jobs, ${dataset.utterances} utterances, ${dataset.words} words, ${(dataset.bytes / 1e6).toFixed(0)} MB of JSON, ${served}`,
    );
    return { shape, sim, ndjson, dataset, syncs: [], floorsA: [], floorsABounded: [], floorsB: [], db: '' };
  } catch (error) {
    await sim.close();
    throw error;
  }
}

/** One round of one shape: floor B, the backfill, floor A unbounded and bounded, as the phases ask. */
async function shapeRound(
  s: ShapeRuns,
  round: number,
  keepDb: boolean,
  options: BenchOptions,
  dir: string,
  say: Say,
): Promise<void> {
  const want = options.phases;
  const runTask = runnerOf(s, options);
  const profile = options.cpuProf ? options.outDir : undefined;
  const seconds = (ms: number) => `${(ms / 1_000).toFixed(2)} s`;
  if (want.has('floor-b')) {
    const floorB: FloorBOptions = {
      baseUrl: s.sim.url,
      apiKey: s.sim.apiKey,
      pageSize: options.pageSize,
    };
    s.floorsB.push(await measured(s.sim, () => runTask<FloorBResult>('floor-b', floorB, profile)));
    say(`${s.shape.name} floor B (transfer) run ${round}: ${seconds(s.floorsB.at(-1)!.run.result.wallMs)}`);
  }
  if (want.has('backfill') || (keepDb && (want.has('idle') || want.has('memory')))) {
    // A file left behind would still be written back to disk during the next measurement: only
    // the idle run's shape keeps its last one.
    if (s.db) removeDb(s.db);
    const db = join(dir, `backfill-${s.shape.name}-${round}.duckdb`);
    s.syncs.push(
      await measured(s.sim, () => runTask<SyncTaskResult>('sync', syncOptions(s.sim, db, options), profile)),
    );
    s.db = keepDb ? db : '';
    if (!keepDb) removeDb(db);
    say(`${s.shape.name} backfill run ${round}: ${seconds(s.syncs.at(-1)!.run.result.wallMs)}`);
  }
  if (want.has('floor-a')) {
    const floorA: FloorAOptions = {
      ndjson: s.ndjson,
      db: join(dir, `floor-a-${s.shape.name}-${round}.duckdb`),
    };
    s.floorsA.push(await runTask<FloorAResult>('floor-a', floorA, profile));
    removeDb(floorA.db);
    say(`${s.shape.name} floor A (DuckDB ingest) run ${round}: ${seconds(s.floorsA.at(-1)!.result.wallMs)}`);
    const bounds = s.shape.floorBounds;
    s.batches ??= cutNdjson(s.ndjson, join(dir, `batches-${s.shape.name}`), bounds.batchJobs);
    const bounded: FloorABoundedOptions = { db: floorA.db, bounds, batches: s.batches };
    s.floorsABounded.push(await runTask<FloorAResult>('floor-a-bounded', bounded, profile));
    removeDb(floorA.db);
    say(`${s.shape.name} floor A bounded run ${round}: ${seconds(s.floorsABounded.at(-1)!.result.wallMs)}`);
  }
}

/**
 * How a shape's tasks run: as runTask says, but with `--smoke --in-process` the last shape's tasks
 * still each in a child, so that every task kind is checked in a child of its own too.
 */
function runnerOf(s: ShapeRuns, options: BenchOptions): typeof runTask {
  const last = options.shapes.at(-1);
  return options.smoke && options.inProcess && s.shape.name === last ? runTaskInChild : runTask;
}

function shapeFigures(s: ShapeRuns): ShapeFigures {
  const { shape, dataset } = s;
  const rounds = Math.min(s.syncs.length, s.floorsABounded.length, s.floorsB.length);
  const roundRatios = Array.from(
    { length: rounds },
    (_, i) =>
      s.syncs[i]!.run.result.wallMs /
      Math.max(s.floorsABounded[i]!.result.wallMs, s.floorsB[i]!.run.result.wallMs),
  );
  return {
    name: shape.name,
    about: shape.about,
    goal: shape.goal,
    floorBounds: shape.floorBounds,
    dataset,
    ...(s.syncs.length > 0 ? { backfill: backfillFigures(s.syncs) } : {}),
    ...(s.floorsA.length > 0 ? { floorA: floorAFigures(s.floorsA, dataset.words) } : {}),
    ...(s.floorsABounded.length > 0 ? { floorABounded: floorAFigures(s.floorsABounded, dataset.words) } : {}),
    ...(s.floorsB.length > 0 ? { floorB: floorBFigures(s.floorsB) } : {}),
    ...(rounds > 0 ? { roundRatios } : {}),
  };
}

/** Fills figures.shapes, and figures.idle and figures.naive when those phases are asked for. */
export async function runShapePhase(
  options: BenchOptions,
  dir: string,
  say: Say,
  figures: Figures,
): Promise<void> {
  const chosen = datasets(options.scale).shapes.filter((shape) => options.shapes.includes(shape.name));
  say(`starting a simulator child for each shape: ${chosen.map((shape) => shape.name).join(', ')}`);
  const started = await Promise.allSettled(chosen.map((shape) => startShape(shape, dir, say)));
  const shapes = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  try {
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    const first = shapes[0]!;
    for (let round = 1; round <= options.repeat; round++) {
      for (const s of shapes) await shapeRound(s, round, s === first, options, dir, say);
    }
    figures.shapes = shapes.map(shapeFigures);
    if (options.phases.has('idle')) {
      figures.idle = await idleRun(first.sim, first.db, options);
      say(`idle run (${first.shape.name}): ${figures.idle.wallMs.toFixed(0)} ms`);
    }
    if (options.phases.has('naive')) {
      const jobs = datasets(options.scale).naiveJobs;
      const naive: NaiveOptions = { ndjson: first.ndjson, db: join(dir, 'naive.duckdb'), jobs };
      // With --smoke --in-process the naive loader is a child of its own, as the last shape's tasks.
      const run = await (options.smoke ? runTaskInChild : runTask)<NaiveResult>('naive', naive);
      figures.naive = naiveFigures(run.result, first.dataset, figures.shapes[0]?.backfill?.words ?? 0);
      say(`naive loader (${first.shape.name}): ${jobs} jobs in ${(run.result.wallMs / 1_000).toFixed(2)} s`);
    }
  } finally {
    await Promise.all(shapes.map((s) => s.sim.close()));
  }
}

/**
 * `--only floor-search`: floor A bounded's settings searched on each shape of `--shapes` for the
 * fastest whose peak RSS holds the budget (`--memory`, the default 512 MB: 488 MiB). A setting is
 * DuckDB's threads, its `memory_limit` and the jobs a transaction; each run is a child of its own,
 * with the program's allocator settings, killed as soon as its peak passes the budget. The search
 * prints every setting tried and the one found, to be written into `floorBounds`
 * (bench/datasets.ts), which the shape phase's floor A bounded runs with.
 *
 * Pruning, per thread count and memory limit: transactions from the largest down to the first that
 * holds (a smaller one, more transactions for the same records, is taken to be slower); memory
 * limits ascending, and a transaction size that passed the budget at a lower limit is not tried at
 * a higher one (one that failed, DuckDB out of memory at its limit, is).
 */
import { join } from 'node:path';
import { DEFAULT_MEMORY } from '../src/memory/budget.js';
import type { BenchOptions } from './args.js';
import { runTask, runTaskWithin, type TaskOutput, type WatchedRun } from './child-output.js';
import { datasets, type FloorGrid, type Shape } from './datasets.js';
import type { FloorSearchFigures, FloorSearchShape, FloorTrial } from './figures.js';
import type { FloorABounds } from './floor-a-sql.js';
import { cutNdjson } from './ndjson-batches.js';
import { removeDb, type Say } from './phase-kit.js';
import { SimProcess } from './sim-process.js';
import type { FloorABoundedOptions, FloorAResult } from './task-floor-a.js';

/** Transactions of about these many MB of NDJSON, in jobs of the shape's mean size. */
const FLOOR_TRANSACTION_MB = [1, 2, 4, 8, 16, 32] as const;

/** Transactions of a trial with `--smoke`: the first two of its batches, still more than one. */
const SMOKE_TRANSACTIONS = 2;

/** `n` to two significant digits. */
function round2(n: number): number {
  const unit = 10 ** Math.max(0, Math.floor(Math.log10(n)) - 1);
  return Math.round(n / unit) * unit;
}

/** The transaction sizes tried on a shape of `jobs` jobs in `bytes` of NDJSON, ascending. */
export function transactionJobs(jobs: number, bytes: number, given?: readonly number[]): number[] {
  const sizes = given ?? FLOOR_TRANSACTION_MB.map((mb) => round2(Math.max(1, (mb * 1e6 * jobs) / bytes)));
  return [...new Set(sizes.map((n) => Math.min(n, jobs)))].sort((a, b) => a - b);
}

type Run = (bounds: FloorABounds, batches: readonly string[]) => Promise<WatchedRun<FloorAResult>>;

/** One trial's figures from its run. */
function trialOf(bounds: FloorABounds, run: WatchedRun<FloorAResult>): FloorTrial {
  if ('overMb' in run) return { bounds, outcome: 'over budget', peakRssMb: run.overMb };
  if ('error' in run)
    return { bounds, outcome: 'failed', error: run.error.split('\n').slice(0, 2).join(' ') };
  const o: TaskOutput<FloorAResult> = run.output;
  return {
    bounds,
    outcome: 'held',
    wallMs: o.result.wallMs,
    peakRssMb: o.peakRssMb,
    cpuMs: o.cpuMs,
    transactions: o.result.transactions,
  };
}

async function searchShape(
  shape: Shape,
  grid: FloorGrid,
  run: Run,
  budgetMb: number,
  dir: string,
  say: Say,
): Promise<FloorSearchShape> {
  const ndjson = join(dir, `search-${shape.name}.ndjson`);
  const sim = await SimProcess.start(shape.sim);
  const dataset = await sim.writeNdjson(ndjson).finally(() => sim.close());
  const sizes = transactionJobs(dataset.jobs, dataset.bytes, grid.batchJobs);
  say(
    `floor search ${shape.name}: ${dataset.jobs} jobs, ${(dataset.bytes / 1e6).toFixed(0)} MB; transactions of ${sizes.join(', ')} jobs`,
  );
  const batches = new Map(
    sizes.map((n) => [n, cutNdjson(ndjson, join(dir, `search-${shape.name}-${n}`), n)]),
  );
  const trials: FloorTrial[] = [];
  for (const threads of grid.threads) {
    /** The smallest transaction that passed the budget at a lower limit. */
    let ceiling = Number.POSITIVE_INFINITY;
    for (const memoryLimitMb of [...grid.memoryLimitMb].sort((a, b) => a - b)) {
      for (const batchJobs of sizes.filter((n) => n < ceiling).reverse()) {
        const bounds: FloorABounds = { threads, memoryLimitMb, batchJobs };
        const trial = trialOf(bounds, await run(bounds, batches.get(batchJobs) ?? []));
        trials.push(trial);
        say(`floor search ${shape.name}: ${floorTrialText(trial)}`);
        // Past the budget at this limit, past it at a higher one too; out of DuckDB's limit, maybe not.
        if (trial.outcome === 'over budget') ceiling = Math.min(ceiling, batchJobs);
        if (trial.outcome === 'held') break;
      }
    }
  }
  const held = trials.filter((t) => t.outcome === 'held');
  const best = held.reduce<FloorTrial | undefined>(
    (a, t) => (a === undefined || (t.wallMs ?? 0) < (a.wallMs ?? 0) ? t : a),
    undefined,
  );
  return {
    name: shape.name,
    jobs: dataset.jobs,
    bytes: dataset.bytes,
    budgetMb,
    trials,
    ...(best ? { best: best.bounds } : {}),
  };
}

/** A trial as the progress lines and the report show it. */
export function floorTrialText(t: FloorTrial): string {
  const { threads, memoryLimitMb, batchJobs } = t.bounds;
  const setting = `${threads} ${threads === 1 ? 'thread' : 'threads'}, memory_limit ${memoryLimitMb} MB, ${batchJobs} jobs a transaction`;
  if (t.outcome === 'held')
    return `${setting}: ${((t.wallMs ?? 0) / 1_000).toFixed(2)} s, peak ${(t.peakRssMb ?? 0).toFixed(0)} MiB`;
  if (t.outcome === 'over budget')
    return `${setting}: over the budget (${(t.peakRssMb ?? 0).toFixed(0)} MiB, stopped)`;
  return `${setting}: failed (${t.error ?? ''})`;
}

export async function runFloorSearch(
  options: BenchOptions,
  dir: string,
  say: Say,
): Promise<FloorSearchFigures> {
  const budgetMb = (options.memory ?? DEFAULT_MEMORY) / 2 ** 20;
  const chosen = datasets(options.scale).shapes.filter((shape) => options.shapes.includes(shape.name));
  let runs = 0;
  const run: Run = async (bounds, batches) => {
    const db = join(dir, `search-${runs++}.duckdb`);
    const loaded = options.smoke ? batches.slice(0, SMOKE_TRANSACTIONS) : batches;
    const task: FloorABoundedOptions = { db, bounds, batches: loaded };
    try {
      // In the bench's process (`--in-process`) a run cannot be stopped: its peak is the bench's.
      if (options.inProcess) return { output: await runTask<FloorAResult>('floor-a-bounded', task) };
      return await runTaskWithin<FloorAResult>('floor-a-bounded', task, budgetMb);
    } finally {
      removeDb(db);
    }
  };
  const grid: FloorGrid = options.smoke
    ? { threads: [1], memoryLimitMb: [300], batchJobs: [2] }
    : options.floorGrid;
  const shapes: FloorSearchShape[] = [];
  for (const shape of chosen) shapes.push(await searchShape(shape, grid, run, budgetMb, dir, say));
  return { shapes };
}

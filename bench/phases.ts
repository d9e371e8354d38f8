/**
 * One bench run: every phase against its simulator child, each measured in a child process of its
 * own, one phase after the other.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchOptions } from './args.js';
import { runBudgetPhase } from './budget-phase.js';
import { runTask } from './child-output.js';
import { datasets } from './datasets.js';
import type { Figures } from './figures.js';
import { runFloorSearch } from './floor-search.js';
import { runIncrementalPhase } from './incremental-phase.js';
import { runLatencyPhase } from './latency-phase.js';
import { type Say, syncOptions } from './phase-kit.js';
import { runScalePhase } from './scale-phase.js';
import { runShapePhase } from './shape-phase.js';
import { SimProcess } from './sim-process.js';
import type { SyncTaskResult } from './task-sync.js';

async function memoryPhase(options: BenchOptions, dir: string, say: Say, figures: Figures): Promise<void> {
  const sets = datasets(options.scale);
  say(`generating ${sets.tenfold.preRecorded + sets.tenfold.live} jobs for the 10x memory run`);
  const sim = await SimProcess.start(sets.tenfold);
  try {
    const run = await runTask<SyncTaskResult>('sync', syncOptions(sim, join(dir, 'tenfold.duckdb'), options));
    const oneX = figures.shapes?.[0]?.backfill?.peakRssMb ?? Number.NaN;
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
    const onShapes = ['floor-b', 'backfill', 'idle', 'floor-a', 'naive', 'memory'] as const;
    if (onShapes.some((phase) => options.phases.has(phase))) await runShapePhase(options, dir, say, figures);
    if (options.phases.has('memory')) await memoryPhase(options, dir, say, figures);
    if (options.phases.has('latency')) figures.latency = await runLatencyPhase(options, dir, say);
    if (options.phases.has('budget')) figures.budget = await runBudgetPhase(options, dir, say);
    if (options.phases.has('incremental')) figures.incremental = await runIncrementalPhase(options, dir, say);
    if (options.phases.has('scale')) figures.scale = await runScalePhase(options, dir, say);
    if (options.phases.has('floor-search')) figures.floorSearch = await runFloorSearch(options, dir, say);
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

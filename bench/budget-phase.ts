/**
 * The memory budget: a backfill, an incremental run and a --full run, each in a child of
 * its own, at the default budget and at 256 MB, for the bench's records (~118 kB a job) and for
 * hour-long transcripts (~1.3 MB a job). Peak RSS is the child's own (getrusage maxRSS, the figure
 * `/usr/bin/time -f %M` prints, in MiB); the target is the budget itself. With `--repeat N` each
 * sequence runs N times on a fresh file, and the figures kept are each step's median run by peak
 * RSS (one sample of a GC-timed peak is noisy), with the worst of the N beside it.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MEMORY } from '../src/memory/budget.js';
import type { BenchOptions } from './args.js';
import { runTask } from './child-output.js';
import { datasets } from './datasets.js';
import type { BudgetFigures, BudgetRun } from './figures.js';
import type { Say } from './phase-kit.js';
import { SimProcess } from './sim-process.js';
import type { SyncTaskOptions, SyncTaskResult } from './task-sync.js';

/** The default and a smaller one. */
export const BUDGETS = [DEFAULT_MEMORY, 256e6] as const;
const STEPS = ['backfill', 'incremental', 'full'] as const;
type Step = (typeof STEPS)[number];

/**
 * The steps run at a budget for one kind of records: every one, but with `--smoke` each step once
 * per kind of figure: every step for hour-long records at the default budget, the backfill alone
 * otherwise.
 */
function stepsAt(budget: number, records: string, options: BenchOptions): readonly Step[] {
  if (!options.smoke) return STEPS;
  return budget === DEFAULT_MEMORY && records === 'hour-long' ? STEPS : ['backfill'];
}

export async function runBudgetPhase(options: BenchOptions, dir: string, say: Say): Promise<BudgetFigures> {
  const sets = datasets(options.scale, new Date(), options.smoke);
  const runs: BudgetRun[] = [];
  const cases = [
    { records: 'bench', sim: sets.main, pageSize: options.pageSize },
    // Pages are bounded by bytes from the first request, so hour-long records need no smaller --page-size.
    { records: 'hour-long', sim: sets.hourLong, pageSize: options.pageSize },
  ] as const;
  for (const c of cases) {
    say(`generating ${c.sim.preRecorded + c.sim.live} jobs (${c.records} records) for the memory budget`);
    const sim = await SimProcess.start(c.sim);
    try {
      for (const budget of BUDGETS) {
        const file = join(dir, `budget-${c.records}-${budget}.duckdb`);
        const rounds: BudgetRun[][] = [];
        const steps = stepsAt(budget, c.records, options);
        for (let round = 1; round <= options.repeat; round++) {
          const sequence = await runSequence(sim, file, budget, steps, c, options);
          rounds.push(sequence);
          const peaks = sequence.map((r) => `${r.step} ${r.peakRssMb.toFixed(0)}`).join(', ');
          say(`${c.records} records, ${budget / 1e6} MB budget, round ${round}: peak RSS (MiB) ${peaks}`);
        }
        for (const [i, step] of steps.entries()) {
          runs.push(
            medianRun(
              rounds.map((sequence) => sequence[i]!),
              step,
            ),
          );
        }
      }
    } finally {
      await sim.close();
    }
  }
  return { runs };
}

/** `steps` of a backfill, an incremental run and a --full run, in that order, on a fresh file. */
async function runSequence(
  sim: SimProcess,
  db: string,
  budget: number,
  steps: readonly Step[],
  c: { readonly records: string; readonly pageSize: number },
  options: BenchOptions,
): Promise<BudgetRun[]> {
  const task: SyncTaskOptions = {
    baseUrl: sim.url,
    apiKey: sim.apiKey,
    db,
    pageSize: c.pageSize,
    rateLimit: 1_000,
    concurrency: options.concurrency,
    memory: budget,
  };
  const runs: BudgetRun[] = [];
  try {
    for (const step of steps) {
      const run = await runTask<SyncTaskResult>('sync', { ...task, full: step === 'full' });
      runs.push({
        records: c.records,
        budgetMb: budget / 1e6,
        step,
        wallMs: run.result.wallMs,
        cpuMs: run.cpuMs,
        peakRssMb: run.peakRssMb,
        worstRssMb: run.peakRssMb,
        rounds: 1,
        peakHeapMb: run.memory.heapTotalMb,
        words: run.result.kinds.reduce((n, k) => n + k.words, 0),
      });
    }
  } finally {
    for (const file of [db, `${db}.wal`]) rmSync(file, { force: true });
  }
  return runs;
}

/** The run of median peak RSS among the rounds of one step, carrying the worst peak of them all. */
function medianRun(rounds: readonly BudgetRun[], step: Step): BudgetRun {
  const sorted = [...rounds].sort((a, b) => a.peakRssMb - b.peakRssMb);
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  if (!median) throw new Error(`no run of the ${step} step`);
  return { ...median, worstRssMb: sorted.at(-1)?.peakRssMb ?? median.peakRssMb, rounds: rounds.length };
}

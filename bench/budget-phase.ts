/**
 * The memory budget (issue 15): a backfill, an incremental run and a --full run, each in a child of
 * its own, at the default budget and at 256 MB, for the bench's records (~114 kB a job) and for
 * hour-long transcripts (~1.3 MB a job). Peak RSS is the child's own (getrusage maxRSS, the figure
 * `/usr/bin/time -f %M` prints); the target is the budget itself.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MEMORY } from '../src/sync/memory-budget.js';
import type { BenchOptions } from './args.js';
import { runTask } from './child-output.js';
import { datasets } from './datasets.js';
import type { BudgetFigures, BudgetRun } from './figures.js';
import type { Say } from './phases.js';
import { SimProcess } from './sim-process.js';
import type { SyncTaskOptions, SyncTaskResult } from './task-sync.js';

export const BUDGETS = [DEFAULT_MEMORY, 256e6] as const;
const STEPS = ['backfill', 'incremental', 'full'] as const;

export async function runBudgetPhase(options: BenchOptions, dir: string, say: Say): Promise<BudgetFigures> {
  const sets = datasets(options.scale);
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
        const db = join(dir, `budget-${c.records}-${budget}.duckdb`);
        const task: SyncTaskOptions = {
          baseUrl: sim.url,
          apiKey: sim.apiKey,
          db,
          pageSize: c.pageSize,
          rateLimit: 1_000,
          concurrency: options.concurrency,
          memory: budget,
        };
        for (const step of STEPS) {
          const run = await runTask<SyncTaskResult>('sync', { ...task, full: step === 'full' });
          const words = run.result.kinds.reduce((n, k) => n + k.words, 0);
          runs.push({
            records: c.records,
            budgetMb: budget / 1e6,
            step,
            wallMs: run.result.wallMs,
            cpuMs: run.cpuMs,
            peakRssMb: run.peakRssMb,
            peakHeapMb: run.memory.heapTotalMb,
            words,
          });
          say(
            `${c.records} records, ${budget / 1e6} MB, ${step}: ${(run.result.wallMs / 1_000).toFixed(2)} s, peak RSS ${run.peakRssMb.toFixed(0)} MB`,
          );
        }
        for (const file of [db, `${db}.wal`]) rmSync(file, { force: true });
      }
    } finally {
      await sim.close();
    }
  }
  return { runs };
}

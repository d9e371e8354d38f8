/** What the bench's phases share: how they report progress and run a backfill task. */
import { rmSync } from 'node:fs';
import type { BenchOptions } from './args.js';
import type { SimProcess } from './sim-process.js';
import type { SimUsage } from './sim-service.js';
import type { SyncTaskOptions } from './task-sync.js';

/** Requests per second of the client's limiter in the backfill: high, so the figure is the sync's own. */
const BACKFILL_RATE_LIMIT = 1_000;

export type Say = (line: string) => void;

export function removeDb(path: string): void {
  for (const file of [path, `${path}.wal`]) rmSync(file, { force: true });
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export function syncOptions(sim: SimProcess, db: string, options: BenchOptions): SyncTaskOptions {
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

/** The simulator child's CPU time (user + system) between two readings, ms. */
export function simCpuMs(before: SimUsage, after: SimUsage): number {
  return (after.userMicros + after.systemMicros - before.userMicros - before.systemMicros) / 1_000;
}

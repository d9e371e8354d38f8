/** Child task: one `runSync` (a backfill or an incremental run) against the simulator, timed. */

import { syncDefaults } from '../src/config/sync-defaults.js';
import { runSync } from '../src/sync/run.js';
import type { SyncOptions } from '../src/sync/types.js';

export interface SyncTaskOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly db: string;
  readonly pageSize: number;
  /** Requests per second of the client's limiter. */
  readonly rateLimit: number;
  readonly concurrency: number;
  readonly sliceJobs?: number;
  /** A `--full` run (reconcile). */
  readonly full?: boolean;
  /** With `full`: reconcile only jobs created in the last `reconcileWindow` ms (`--window`). */
  readonly reconcileWindow?: number;
  /** The memory budget, bytes (--memory); the engine's default when undefined. */
  readonly memory?: number;
}

export interface SyncTaskKind {
  readonly kind: string;
  readonly requests: number;
  readonly pages: number;
  readonly jobsFetched: number;
  readonly inserted: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly words: number;
  readonly pendingRechecked: number;
  readonly deleted: number;
}

export interface SyncTaskResult {
  readonly wallMs: number;
  readonly outcome: string;
  readonly kinds: readonly SyncTaskKind[];
}

export async function runSyncTask(options: SyncTaskOptions): Promise<SyncTaskResult> {
  const started = performance.now();
  const sync: SyncOptions = {
    ...syncDefaults(),
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    db: options.db,
    full: options.full ?? false,
    // Spread, not a field: the same task also drives a build that predates the option (bench before/after).
    ...(options.reconcileWindow === undefined ? {} : { reconcileWindow: options.reconcileWindow }),
    redisPrefix: 'tsync-bench',
    pageSize: options.pageSize,
    rateLimit: options.rateLimit,
    concurrency: options.concurrency,
    ...(options.sliceJobs === undefined ? {} : { sliceJobs: options.sliceJobs }),
    ...(options.memory === undefined ? {} : { memory: options.memory }),
  };
  const summary = await runSync(sync, sync);
  const wallMs = performance.now() - started;
  if (summary.outcome !== 'ok') {
    const errors = summary.kinds.map((k) => k.error).filter(Boolean);
    throw new Error(`the sync ended ${summary.outcome}: ${errors.join('; ')}`);
  }
  return {
    wallMs,
    outcome: summary.outcome,
    kinds: summary.kinds.map((k) => ({
      kind: k.kind,
      requests: k.requests,
      pages: k.pages,
      jobsFetched: k.jobsFetched,
      inserted: k.inserted,
      updated: k.updated,
      unchanged: k.unchanged,
      words: k.words,
      pendingRechecked: k.pendingRechecked,
      deleted: k.deleted,
    })),
  };
}

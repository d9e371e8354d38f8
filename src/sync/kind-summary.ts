/**
 * What one kind's run works with (KindRunContext), its running totals (RunCounters), its summary
 * at the end (what sync_runs, the CLI and the worker report) and its progress reports.
 */
import type { Listing } from '../extract/index.js';
import type { JobKind } from '../kinds.js';
import type { LoadResult, RecordLoader } from '../load/loader.js';
import type { Logger } from '../log.js';
import type { MemoryPlan } from '../memory/budget.js';
import type { HeapGuard } from '../memory/heap-guard.js';
import type { Database } from '../store/index.js';
import type { RetentionWatch } from './retention.js';
import type { CheckpointStore, KindSummary, RunOutcome, SyncMode, SyncPlan, SyncProgress } from './types.js';

/** The run's plan and the resources runSync opened, for one kind's run. */
export interface KindRunContext {
  readonly db: Database;
  readonly loader: RecordLoader;
  readonly client: Listing;
  /** Stores to save into, each in its phase; the DuckDB one always, the chosen one when it is another. */
  readonly stores: readonly CheckpointStore[];
  readonly plan: SyncPlan;
  /** Page bytes, queue depth, batch and commit sizes, from the memory budget. */
  readonly memory: MemoryPlan;
  /** Asked between loads to keep the V8 heap within the budget. */
  readonly heap: HeapGuard;
  readonly runId: string;
  /** The run's start: every window's fixed `before_date`. */
  readonly startedAt: Date;
  /** The retention's edges as of `startedAt`, and the run's one warning of a setting too short. */
  readonly retention: RetentionWatch;
  /**
   * Whether the file holds jobs erased while known only by the quarantine: a load may then store
   * one, which the transaction erases again before it commits (src/store/erase.ts).
   */
  readonly tombstones: boolean;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  readonly onProgress?: ((progress: SyncProgress) => void) | undefined;
}

/** A kind's running totals, in the order its summary lists them. */
export class RunCounters {
  pages = 0;
  jobsFetched = 0;
  inserted = 0;
  updated = 0;
  unchanged = 0;
  quarantined = 0;
  deleted = 0;
  expired = 0;
  restored = 0;
  words = 0;
  pendingRechecked = 0;
  restarts = 0;
  /** Pages that contradicted themselves, cleared by asking again or not: a --full run then marks no deletions. */
  anomalies = 0;

  addPages(pages: number, records: number): void {
    this.pages += pages;
    this.jobsFetched += records;
  }

  addLoad(result: LoadResult): void {
    for (const key of LOADED) this[key] += result[key];
  }

  /**
   * The counts a transaction adds to (its loads and its pending re-checks) as of now: what
   * `takeBack` returns to when the transaction that follows rolls back.
   */
  loads(): LoadCounts {
    return Object.fromEntries(IN_TRANSACTION.map((key) => [key, this[key]])) as LoadCounts;
  }

  takeBack(loads: LoadCounts): void {
    for (const key of IN_TRANSACTION) this[key] = loads[key];
  }
}

type LoadCounts = Record<(typeof IN_TRANSACTION)[number], number>;

/** The counts of a load that a kind's totals add up. */
const LOADED = ['inserted', 'updated', 'unchanged', 'quarantined', 'restored', 'words'] as const;

/** The counts that stand only once the transaction that added to them commits. */
const IN_TRANSACTION = [...LOADED, 'pendingRechecked'] as const;

/**
 * The kind's reports from its counters and the client's counts since the kind's own start:
 * `summary` as of now (`error`: the one-line reason of a failed or interrupted run); `update`
 * reports progress at most every 250 ms, its elapsed time counted from the kind's start; `finish`
 * the last time, at the summary's `finishedAt`, so that both show one duration.
 */
export function kindReport(
  ctx: KindRunContext,
  kind: JobKind,
  window: { readonly mode: SyncMode; readonly after: Date | null },
  counters: RunCounters,
) {
  // The kind's own start; the window's end stays the run's start (`ctx.startedAt`).
  const startedAt = new Date();
  const before = { ...ctx.client.stats };
  let reported = 0;
  const report = (at: number): void => {
    reported = at;
    ctx.onProgress?.({
      kind,
      pages: counters.pages,
      jobs: counters.jobsFetched,
      words: counters.words,
      elapsed: at - startedAt.getTime(),
    });
  };
  return {
    summary(outcome: RunOutcome, error?: string): KindSummary {
      const { stats } = ctx.client;
      const { pages, anomalies: _, ...counts } = counters;
      return {
        runId: ctx.runId,
        kind,
        mode: window.mode,
        windowAfter: window.after?.toISOString() ?? null,
        windowBefore: ctx.startedAt.toISOString(),
        pages,
        requests: stats.requests - before.requests,
        retries: stats.retries - before.retries,
        pauses: stats.pauses - before.pauses,
        ...counts,
        startedAt: startedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        outcome,
        ...(error === undefined ? {} : { error }),
      };
    },
    update(): void {
      const now = Date.now();
      if (now - reported >= 250) report(now);
    },
    finish(summary: KindSummary): void {
      report(Date.parse(summary.finishedAt));
    },
  };
}

export type KindReport = ReturnType<typeof kindReport>;

/**
 * The sync engine's public shapes: what a run is asked to do, what it reports, and what it
 * remembers between runs (the checkpoint) behind one interface with two stores (DuckDB, Redis).
 */
import type { PublishResult } from '../analytics/publish.js';
import type { Logger } from '../log.js';

export const SYNC_KINDS = ['pre-recorded', 'live'] as const;
export type SyncKind = (typeof SYNC_KINDS)[number];

export interface SyncOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** DuckDB file. */
  readonly db: string;
  readonly kinds: readonly SyncKind[];
  /** Walk everything and mark jobs no longer listed as deleted. */
  readonly full: boolean;
  /**
   * With `full`: walk (and mark deleted) only jobs created in the last `reconcileWindow` ms
   * (`--window`); src/sync/reconcile-window.ts. Default: the whole history.
   */
  readonly reconcileWindow?: number;
  /** Lower bound of a first run (no watermark yet). */
  readonly since?: Date;
  readonly checkpoints: 'duckdb' | 'redis';
  readonly redisUrl?: string;
  readonly redisPrefix: string;
  readonly pageSize: number;
  /**
   * Most JSON bytes of one page (default 8 MiB, page-sizer.ts PAGE_TARGET_BYTES): pages are sized
   * to it from the first request, and an answer that grows past it is asked again smaller.
   */
  readonly pageBytes?: number;
  /** Most JSON bytes of one record asked alone (default 64 MiB); a bigger one fails the kind. */
  readonly maxRecordBytes?: number;
  /** Share (0..1) of a kind's stored jobs one --full run may mark deleted (default 0.1; at least 10 jobs). */
  readonly maxDeleteShare?: number;
  readonly rateLimit: number;
  readonly concurrency: number;
  /** Jobs per backfill slice; default 4 pages' worth. Smaller slices: less work lost on a crash. */
  readonly sliceJobs?: number;
  /**
   * The memory budget of the process, bytes (--memory, TSYNC_MEMORY; default 512 MB): page bytes,
   * pages in flight, batch size and DuckDB's memory_limit all derive from it (memory-budget.ts).
   */
  readonly memory?: number;
  /** ms */
  readonly lookback: number;
  /** ms */
  readonly pendingMaxAge: number;
  /** ms */
  readonly lockWait: number;
  readonly metadataEncoding: 'json' | 'brackets';
  /** After a successful run, refresh the Parquet dataset in `dir` (src/analytics/publish.ts). */
  readonly publish?: PublishTarget;
  readonly logger?: Logger;
  /** Aborting stops the run after the batch in hand is committed and checkpointed. */
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: SyncProgress) => void;
}

export interface SyncProgress {
  readonly kind: SyncKind;
  readonly pages: number;
  readonly jobs: number;
  readonly words: number;
  /** ms since the kind's walk started */
  readonly elapsed: number;
}

export type RunOutcome = 'ok' | 'failed' | 'interrupted';

export interface KindSummary {
  readonly runId: string;
  readonly kind: SyncKind;
  readonly mode: 'incremental' | 'full';
  readonly windowAfter: string | null;
  readonly windowBefore: string;
  readonly pages: number;
  readonly requests: number;
  readonly retries: number;
  readonly jobsFetched: number;
  readonly inserted: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly quarantined: number;
  readonly deleted: number;
  readonly restored: number;
  readonly words: number;
  readonly pendingRechecked: number;
  /** Times a slice was walked again because jobs moved under the walk (deletions). */
  readonly restarts: number;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly outcome: RunOutcome;
  readonly error?: string;
}

export interface SyncSummary {
  readonly runId: string;
  readonly outcome: RunOutcome;
  readonly kinds: readonly KindSummary[];
  /** What the publish after the run wrote, when --publish was given and the run succeeded. */
  readonly published?: PublishResult;
}

export interface PublishTarget {
  /** Absolute folder of the dataset. */
  readonly dir: string;
  /** Keep jobs.raw in the published jobs. */
  readonly raw: boolean;
}

/** What a kind remembers between runs. Times are ISO 8601 strings (JSON-safe for both stores). */
export interface Checkpoint {
  /** Every job created before this instant has been committed (minus late arrivals, which the lookback covers). */
  readonly watermark: string | null;
  /** Ids of jobs last seen queued/processing, re-checked until done or error. */
  readonly pending: readonly string[];
  /** The backfill slice being walked, if a run stopped inside one. */
  readonly slice: { readonly after: string | null; readonly before: string } | null;
  readonly lastRun: KindSummary | null;
}

export interface CheckpointStore {
  readonly name: 'duckdb' | 'redis';
  load(kind: SyncKind): Promise<Checkpoint | null>;
  /**
   * Saves a checkpoint that covers rows just written. DuckDB's store writes inside the open
   * transaction (`phase: 'in-transaction'`); Redis's store writes after the commit (`'after-commit'`).
   * The engine calls both phases; each store acts in its own.
   */
  save(kind: SyncKind, checkpoint: Checkpoint, phase: 'in-transaction' | 'after-commit'): Promise<void>;
  close(): Promise<void>;
}

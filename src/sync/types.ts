/**
 * The sync engine's public shapes: what a run is asked to do, what it reports, and what it
 * remembers between runs (the checkpoint) behind one interface with two stores (DuckDB, Redis).
 */
import type { Listing } from '../extract/index.js';
import type { JobKind } from '../kinds.js';
import type { Logger } from '../log.js';

/**
 * What a run does: which lists, which window, and how it pages, paces and loads them. Every field is
 * resolved (src/config/sync-defaults.ts); null says "none" or, for the two derived ones, "derive
 * it when the run starts" from the run's own memory, concurrency and page size.
 */
export interface SyncPlan {
  readonly kinds: readonly JobKind[];
  /** Walk everything and mark jobs no longer listed as deleted. */
  readonly full: boolean;
  /** With `full`: walk only jobs created in the last ms (`--window`); null: the whole history listed. */
  readonly reconcileWindow: number | null;
  /** Lower bound of a first run (no watermark yet); null: all history. */
  readonly since: Date | null;
  readonly pageSize: number;
  /** Most JSON bytes of a page (`--page-bytes`): a bigger answer is asked again smaller; null: derived. */
  readonly pageBytes: number | null;
  /** Most JSON bytes of one record asked alone (`--max-record-bytes`); a bigger one fails the kind. */
  readonly maxRecordBytes: number;
  /** ms before a page that contradicts itself is asked again, twice that the second time (no flag). */
  readonly anomalyPauseMs: number;
  /** Share (0..1) of a kind's stored jobs one --full run may mark deleted (at least 10 jobs). */
  readonly maxDeleteShare: number;
  /** The account's data retention, ms (`--service-retention`): older jobs are not listed. */
  readonly serviceRetention: number;
  /** What a --full run does with the jobs it marks deleted: nothing more, or erase them (src/store/erase.ts). */
  readonly onDelete: 'mark' | 'erase';
  /** Keys of custom_metadata an erased job keeps. */
  readonly eraseKeepMetadata: readonly string[];
  /** Slices walked at once, and the client's burst. */
  readonly concurrency: number;
  /** Jobs per backfill slice (`--slice-jobs`); null: 4 pages' worth (extract/slices.ts). */
  readonly sliceJobs: number | null;
  /** The process's memory budget, bytes (`--memory`): the rest derives from it (memory/budget.ts). */
  readonly memory: number;
  /** ms */
  readonly lookback: number;
  /** ms */
  readonly pendingMaxAge: number;
}

/** The listing service a run opens a client on (src/extract). */
export interface ServiceSettings {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Requests per second. */
  readonly rateLimit: number;
}

/** Where a run keeps its rows and checkpoints. */
export interface StoreSettings {
  /** DuckDB file. */
  readonly db: string;
  /** ms to wait for the file while another process holds it. */
  readonly lockWait: number;
  readonly checkpoints: 'duckdb' | 'redis';
  /** null: no Redis (checkpoints 'duckdb' only). */
  readonly redisUrl: string | null;
  readonly redisPrefix: string;
}

/** Why a run refuses these settings (REDIS_URL's problem: `config show` names it too); undefined when it takes them. */
export function redisUrlProblem(
  settings: Pick<StoreSettings, 'checkpoints' | 'redisUrl'>,
): string | undefined {
  if (settings.checkpoints === 'redis' && !settings.redisUrl) {
    return 'is required with --checkpoints redis; set REDIS_URL or --redis-url';
  }
  return undefined;
}

/** How a run reports and is stopped. */
export interface RunHooks {
  readonly logger?: Logger;
  /** Aborting stops the run after the batch in hand is committed and checkpointed. */
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: SyncProgress) => void;
}

/** What a run uses: the listing `source` when given (the caller's to close), else a client it opens. */
export type SyncResources = StoreSettings & RunHooks & ({ readonly source: Listing } | ServiceSettings);

/** Every setting of a run, flat (src/config/sync-defaults.ts): both arguments of `runSync`. */
export interface SyncOptions extends SyncPlan, ServiceSettings, StoreSettings, RunHooks {}

/**
 * What a kind's run walks: `incremental` from the watermark; `recent` a reconcile of the jobs created
 * in the last `reconcileWindow` (`sync --full --window`); `full` a reconcile of the whole history
 * listed (also a windowed one on a file never synced).
 */
export const SYNC_MODES = ['incremental', 'full', 'recent'] as const;
export type SyncMode = (typeof SYNC_MODES)[number];

export interface SyncProgress {
  readonly kind: JobKind;
  readonly pages: number;
  readonly jobs: number;
  readonly words: number;
  /** ms since the kind's walk started */
  readonly elapsed: number;
}

export type RunOutcome = 'ok' | 'failed' | 'interrupted';

export interface KindSummary {
  readonly runId: string;
  readonly kind: JobKind;
  readonly mode: SyncMode;
  readonly windowAfter: string | null;
  readonly windowBefore: string;
  readonly pages: number;
  readonly requests: number;
  readonly retries: number;
  /** Times every request waited out the service's Retry-After (a 429, a 503 with Retry-After). */
  readonly pauses: number;
  readonly jobsFetched: number;
  readonly inserted: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly quarantined: number;
  readonly deleted: number;
  /** Jobs marked expired: gone from the list by the service's retention, kept (src/sync/retention.ts). */
  readonly expired: number;
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
  /** Kinds asked for that a stop (the signal) came before: never started, no sync_runs row. */
  readonly notStarted: readonly JobKind[];
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

/**
 * When a store saves a checkpoint that covers rows just written: inside the open DuckDB transaction
 * (it commits with the rows, so it can never claim rows the file lacks), or after that commit (a
 * store outside the file can only follow it, never lead it).
 */
export type CheckpointPhase = 'in-transaction' | 'after-commit';

export interface CheckpointStore {
  readonly name: 'duckdb' | 'redis';
  /** The engine calls `save` in this phase only (duckdb-store.ts saveCheckpoint). */
  readonly phase: CheckpointPhase;
  load(kind: JobKind): Promise<Checkpoint | null>;
  save(kind: JobKind, checkpoint: Checkpoint): Promise<void>;
  close(): Promise<void>;
}

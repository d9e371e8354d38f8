/** What `status` reads: per kind, the file's contents and how the last run went. */
import type { RowSource } from '../database.js';
import { only, queryText } from './queries.js';

export type KindStatusRow = {
  /** pre-recorded, live, or unknown (quarantined records of no known kind; listed when there are some). */
  readonly kind: string;
  readonly watermark: string | null;
  readonly jobs: number;
  /** queued/processing jobs created at or after $pending_since: re-checked on every run. */
  readonly pending: number;
  /** queued/processing jobs created before $pending_since: no longer re-checked. */
  readonly pending_stale: number;
  readonly deleted: number;
  /** Jobs past the service's retention, no longer listed: kept, and counted in `jobs` too. */
  readonly expired: number;
  /** Rows of `jobs` beyond one per id: 0 unless something other than the loader wrote the file. */
  readonly duplicate_ids: number;
  /** A BIGINT: a bigint past 2^53. */
  readonly words: number | bigint;
  readonly quarantined: number;
  readonly last_run_at: string | null;
  readonly last_outcome: string | null;
  readonly last_error: string | null;
};

export type StalePendingRow = {
  readonly kind: string;
  /** Past the max age and not listed by any run since. */
  readonly not_rechecked: number;
  /** Listed still queued or processing by a run since then, within the last max age. */
  readonly upstream: number;
  /** Day (UTC) the oldest of `upstream` was created. */
  readonly upstream_since: string | null;
  /** Earliest of the latest listings of `upstream`, ISO instant. */
  readonly listed_at: string | null;
};

/** Per kind; pending jobs split at `pending_since` (ISO instant). */
export const kindStatus = (db: RowSource, params: { pending_since: string }) =>
  db.all<KindStatusRow>(queryText('status-kinds'), only(params, 'pending_since'));

/**
 * Per kind, the pending jobs created before `pending_since` (now minus `max_age_ms`), split by
 * whether a run has listed them since they went past the max age.
 */
export const stalePendingJobs = (db: RowSource, params: { pending_since: string; max_age_ms: number }) =>
  db.all<StalePendingRow>(queryText('status-pending-stale'), only(params, 'pending_since', 'max_age_ms'));

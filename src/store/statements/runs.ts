/** The `sync_runs` table: one row per run and kind, opened as 'running' and closed with the outcome. */
import type { JobKind } from '../../kinds.js';
import type { Database, RowSource } from '../database.js';
import { only, queryText } from './queries.js';

/** A run's counts, as `sync_runs` stores them. */
type RunCounts = {
  readonly pages: number;
  readonly requests: number;
  readonly retries: number;
  readonly jobs_fetched: number;
  readonly inserted: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly quarantined: number;
  readonly deleted: number;
  readonly expired: number;
  readonly restored: number;
};

/** Instants as ISO 8601 text. */
export type RunStart = {
  readonly run_id: string;
  readonly kind: JobKind;
  readonly mode: string;
  readonly window_after: string | null;
  readonly window_before: string;
  readonly started_at: string;
};

/** Instants as ISO 8601 text. */
export type RunFinish = RunCounts &
  Pick<RunStart, 'run_id' | 'kind' | 'window_after'> & {
    readonly finished_at: string;
    readonly outcome: string;
    readonly error: string | null;
  };

/** One row of `runs`: instants as ISO 8601 UTC text, the counts as stored (null on a run never finished). */
export type RunRow = { readonly [K in keyof RunCounts]: RunCounts[K] | null } & {
  readonly run_id: string;
  readonly kind: string;
  readonly mode: string;
  readonly outcome: string;
  readonly started_at: string;
  readonly finished_at: string | null;
  readonly duration_s: number | null;
  readonly window_after: string | null;
  readonly window_before: string | null;
  readonly error: string | null;
};

export const insertRun = (db: Database, run: RunStart) => db.run(queryText('sync-run-start'), run);

export const finishRun = (db: Database, run: RunFinish) => db.run(queryText('sync-run-finish'), run);

/**
 * Closes as 'abandoned' every run still 'running' but `run_id`, ended `finished_at` (ISO 8601) with
 * `error`; only the holder of the file's writer lock may call it. Returns the rows it closed.
 */
export const abandonRuns = (db: Database, params: { run_id: string; finished_at: string; error: string }) =>
  db.all<{ run_id: string; kind: string }>(queryText('sync-runs-abandon'), params);

/** window_before of the kind's newest ok run (DuckDB's text of the instant); undefined: none yet. */
export async function lastOkWindowBefore(
  db: RowSource,
  params: { kind: JobKind },
): Promise<string | undefined> {
  const [row] = await db.all<{ window_before: string }>(queryText('sync-last-ok-run'), only(params, 'kind'));
  return row?.window_before;
}

/** Per kind, how its newest finished run ended. */
export const lastRunOutcomes = (db: RowSource) =>
  db.all<{ kind: JobKind; outcome: 'ok' | 'failed' }>(queryText('runs-last-outcome'));

/** The history, newest first, of one kind or (null) both; at most `limit` rows. */
export const listRuns = (db: RowSource, params: { kind: JobKind | null; limit: number }) =>
  db.all<RunRow>(queryText('runs-list'), only(params, 'kind', 'limit'));

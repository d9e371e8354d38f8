/**
 * Freshness: seconds from a job's completed_at upstream to the write that brought it into the file
 * done or failed (sql/queries/freshness-run.sql says which writes count).
 */
import type { JobKind } from '../../kinds.js';
import type { RowSource } from '../database.js';
import { only, queryText } from './queries.js';

/** One figure per job of `kind` written since `since` (ISO instant: the kind's run start). */
export async function runFreshness(
  db: RowSource,
  params: { kind: JobKind; since: string },
): Promise<number[]> {
  const rows = await db.all<{ seconds: number }>(queryText('freshness-run'), only(params, 'kind', 'since'));
  return rows.map((row) => Number(row.seconds));
}

export type CompletionLagRow = {
  readonly kind: string;
  readonly jobs: number;
  /** Seconds. */
  readonly p50: number;
  /** Seconds. */
  readonly p95: number;
};

/** Per kind, the median and 95th percentile over the runs that finished since `since` (ISO instant). */
export const completionLagByKind = (db: RowSource, params: { since: string }) =>
  db.all<CompletionLagRow>(queryText('status-freshness'), only(params, 'since'));

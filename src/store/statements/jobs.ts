/** Reads of the `jobs` table a sync plans with. */
import type { JobKind } from '../../kinds.js';
import type { RowSource } from '../database.js';
import { only, queryText } from './queries.js';

export type PendingJob = {
  readonly id: string;
  /** ISO 8601 UTC, milliseconds. */
  readonly created_at: string;
  /** Place (1-based) among the kind's listed jobs of the asked range, by created_at. */
  readonly position: number;
};

/** Stored jobs of the kind. */
export async function countJobs(db: RowSource, params: { kind: JobKind }): Promise<number> {
  const rows = await db.all<{ n: number }>(queryText('jobs-count-kind'), { kind: params.kind });
  return Number(rows[0]?.n ?? 0);
}

/** Jobs of the kind last seen queued or processing, created in [since, before) (ISO instants). */
export function listPendingJobs(
  db: RowSource,
  params: { kind: JobKind; since: string; before: string },
): Promise<PendingJob[]> {
  return db.all<PendingJob>(queryText('jobs-pending'), only(params, 'kind', 'since', 'before'));
}

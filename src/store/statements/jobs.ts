/** Reads of the `jobs` table a sync plans with. */
import type { JobKind } from '../../kinds.js';
import type { RowSource } from '../database.js';
import { countOf, only, queryText } from './queries.js';

export type PendingJob = {
  readonly id: string;
  /** ISO 8601 UTC, milliseconds. */
  readonly created_at: string;
  /** Place (1-based) among the kind's listed jobs of the asked range, by created_at. */
  readonly position: number;
};

export const countJobs = (db: RowSource, params: { kind: JobKind }) =>
  countOf(db.all(queryText('jobs-count-kind'), only(params, 'kind')), 'n');

/** Jobs of the kind last seen queued or processing, created in [since, before) (ISO instants). */
export const listPendingJobs = (db: RowSource, params: { kind: JobKind; since: string; before: string }) =>
  db.all<PendingJob>(queryText('jobs-pending'), only(params, 'kind', 'since', 'before'));

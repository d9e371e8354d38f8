/** Keeping the file in shape: a rewrite's copy and its row counts, small row groups counted and merged. */
import type { Database, RowSource } from '../database.js';
import { queryText } from './queries.js';

/** Rows per table (`t`) of every table of the file, by name. */
export function tableRowCounts(db: RowSource): Promise<{ t: string; n: number }[]> {
  return db.all(queryText('compact-counts'));
}

/** A run of consecutive row ids of `jobs`, both ends included. */
export interface JobBatch {
  readonly first: number;
  readonly last: number;
}

/** The rows of `jobs` in runs of about `batchBytes` of raw each, in stored order (reads every raw once). */
export function jobBatches(db: RowSource, params: { batchBytes: number }): Promise<JobBatch[]> {
  return db.all(queryText('compact-job-batches'), { batch_bytes: params.batchBytes });
}

/** Appends one run of `jobs` to the copy attached as tsync_compacted. */
export async function copyJobBatch(db: Database, batch: JobBatch): Promise<void> {
  await db.run(queryText('compact-copy-jobs'), { first: batch.first, last: batch.last });
}

/** Appends every other table whole to the copy attached as tsync_compacted. */
export async function copyOtherTables(db: Database): Promise<void> {
  await db.run(queryText('compact-copy-tables'));
}

/** The sync runs a file has recorded (distinct run ids of sync_runs). */
export interface RecordedRuns {
  readonly runs: number;
  /** Runs that inserted or replaced a job: they appended rows to the history tables. */
  readonly writing: number;
  /** Whether the latest run (by its start) is one of those. */
  readonly latestWrote: boolean;
}

export async function recordedRuns(db: RowSource): Promise<RecordedRuns> {
  const [row] = await db.all<{ runs: number; writing: number; latest_wrote: boolean }>(
    queryText('compact-runs-count'),
  );
  return {
    runs: Number(row?.runs ?? 0),
    writing: Number(row?.writing ?? 0),
    latestWrote: row?.latest_wrote === true,
  };
}

/** The most row groups of under 2,048 rows any table that grows with the history holds. */
export async function smallRowGroups(db: RowSource): Promise<number> {
  const [row] = await db.all<{ small: number }>(queryText('compact-small-row-groups'));
  return Number(row?.small ?? 0);
}

/**
 * Moves the rows of the small row groups of every history table but `jobs` into new ones (see the
 * SQL file); run it in a transaction. The checkpoint after the commit drops the emptied groups.
 * It leaves the row ids of the small groups of `jobs` for smallJobBatches.
 */
export async function mergeSmallRowGroups(db: Database): Promise<void> {
  await db.run(queryText('merge-small-row-groups'));
}

/** The row ids of the small row groups of `jobs`, in batches of about `batchBytes` of raw, the highest first. */
export async function smallJobBatches(db: RowSource, params: { batchBytes: number }): Promise<number[][]> {
  const rows = await db.all<{ ids: number[] }>(queryText('merge-jobs-batches'), {
    batch_bytes: params.batchBytes,
  });
  return rows.map((row) => row.ids);
}

/** Moves one batch of smallJobBatches past the end of `jobs`; run it in a transaction of its own. */
export async function moveJobBatch(db: Database, ids: readonly number[]): Promise<void> {
  await db.run(queryText('merge-jobs-copy'), { ids: [...ids] });
  await db.run(queryText('merge-jobs-delete'), { ids: [...ids] });
}

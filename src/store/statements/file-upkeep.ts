/**
 * Keeping the file in shape: a rewrite's copy and its row counts, small row groups counted and
 * merged, and the copy of the records into job_records before migration 006.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Database, RowSource } from '../database.js';
import { rowObjects } from '../values.js';
import { loadSql } from './load-sql.js';
import { countOf, countsOf, only, queryText } from './queries.js';

/** Rows per table (`t`) of every table of the file, by name. */
export const tableRowCounts = (db: RowSource) =>
  db.all<{ t: string; n: number }>(queryText('compact-counts'));

/** A run of consecutive row ids of `job_records`, both ends included. */
export interface RecordBatch {
  readonly first: number;
  readonly last: number;
}

/** The rows of `job_records` in runs of about `batchBytes` of raw each, in stored order (reads every raw once). */
export const recordBatches = (db: RowSource, params: { batchBytes: number }) =>
  db.all<RecordBatch>(queryText('compact-job-batches'), { batch_bytes: params.batchBytes });

/** Appends one run of `job_records` to the copy attached as tsync_compacted. */
export const copyRecordBatch = (db: Database, batch: RecordBatch) =>
  db.run(queryText('compact-copy-records'), only(batch, 'first', 'last'));

/** Appends every other table whole to the copy attached as tsync_compacted. */
export const copyOtherTables = (db: Database) => db.run(queryText('compact-copy-tables'));

/** The rows of sync_runs a file has recorded, one per run and kind, and the latest run's share. */
export interface RecordedRuns {
  readonly rows: number;
  /** Rows of a kind that inserted or replaced a job: it appended rows to the history tables. */
  readonly writing: number;
  /** Rows of the latest run (by its start): one per kind it ran; 0 when none is recorded. */
  readonly latest_rows: number;
  /** Of those, the rows of a kind that wrote. */
  readonly latest_writing: number;
}

export const recordedRuns = (db: RowSource): Promise<RecordedRuns> =>
  countsOf(db.all(queryText('compact-runs-count')), 'rows', 'writing', 'latest_rows', 'latest_writing');

/** The most small row groups (sql/load/row-groups.sql) any table that grows with the history holds. */
export const smallRowGroups = (db: RowSource) =>
  countOf(db.all(queryText('compact-small-row-groups')), 'small');

/**
 * Lists the rows of the small row groups of every history table in batches (see the SQL file) and
 * returns the highest batch, -1 when none; `job_records`' row ids stay for smallRecordBatches.
 */
export async function planSmallRowGroups(db: Database): Promise<number> {
  await db.run(queryText('merge-small-row-groups'));
  const [row] = await db.all<{ last: number }>(queryText('merge-batch-last'));
  return Number(row?.last ?? -1);
}

/** Moves batch `b` of planSmallRowGroups of every table but `job_records`; run it in a transaction. */
export async function moveSmallRowGroupBatch(db: Database, params: { b: number }): Promise<void> {
  await db.run(queryText('merge-batch-pick'), { b: params.b });
  await db.run(queryText('merge-batch-move'));
}

/** The row ids of the small row groups of `job_records`, in batches of about `batchBytes` of raw, the highest first. */
export async function smallRecordBatches(db: RowSource, params: { batchBytes: number }): Promise<number[][]> {
  const rows = await db.all<{ ids: number[] }>(queryText('merge-records-batches'), {
    batch_bytes: params.batchBytes,
  });
  return rows.map((row) => row.ids);
}

/** Moves one batch of smallRecordBatches past the end of `job_records`; run it in a transaction of its own. */
export async function moveRecordBatch(db: Database, ids: readonly number[]): Promise<void> {
  await db.run(queryText('merge-records-copy'), { ids: [...ids] });
  await db.run(queryText('merge-records-delete'), { ids: [...ids] });
}

/**
 * Makes the view of the row groups a close counts (temp `_tsync_row_groups`): those of every table
 * that grows with the history (row-groups.sql), or of sync_runs alone (`runsOnly`, row-groups-runs.sql).
 */
export const makeRowGroupsView = (db: Database, params: { runsOnly: boolean }) =>
  db.run(loadSql(params.runsOnly ? 'row-groups-runs' : 'row-groups'));

/** Empties job_records of what an interrupted copy before migration 006 left (records-apart-reset.sql). */
export const resetRecordsApart = (connection: DuckDBConnection) =>
  connection.run(loadSql('records-apart-reset'));

/** The rows of `jobs` in runs of consecutive row ids of about `batchBytes` of raw each, in order (records-apart-batches.sql). */
export async function recordsApartBatches(
  connection: DuckDBConnection,
  params: { batchBytes: number },
): Promise<RecordBatch[]> {
  const result = await connection.run(loadSql('records-apart-batches'), { batch_bytes: params.batchBytes });
  return rowObjects<RecordBatch>(result);
}

/** Appends the records of one run of `jobs` to job_records (records-apart-copy.sql); run it in a transaction. */
export const copyRecordsApartBatch = (connection: DuckDBConnection, batch: RecordBatch) =>
  connection.run(loadSql('records-apart-copy'), only(batch, 'first', 'last'));

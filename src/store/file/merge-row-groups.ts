/**
 * When and how the small row groups of the history tables are merged
 * (docs/decisions/0007-small-row-groups-merged-by-moving-rows.md): DuckDB's own merging is off for
 * writers, so once a table holds COMPACT_AFTER, the close moves their rows, and only those.
 */
import type { Database } from '../database.js';
import {
  makeRowGroupsView,
  moveRecordBatch,
  moveSmallRowGroupBatch,
  planSmallRowGroups,
  type RecordedRuns,
  recordedRuns,
  smallRecordBatches,
  smallRowGroups,
} from '../statements/file-upkeep.js';

/**
 * Bytes of `raw` (about, plus one record) a row group of `job_records` a merge or `compact` writes
 * holds: DuckDB decompresses a vector of it at once into up to twice this, which a reading's pool
 * holds at the default budget (src/memory/reader-memory.ts).
 */
export const JOBS_GROUP_RAW_BYTES = 16 * 2 ** 20;

/** Small row groups a history table may collect before a close merges them. */
export const COMPACT_AFTER = 64;

/**
 * Rows of sync_runs between two counts of the small row groups, which read every column's segments
 * (sql/load/row-groups.sql): all are counted when the latest run's rows of kinds that wrote took their
 * total past a multiple of this, only sync_runs' when its rows did (sql/load/row-groups-runs.sql), and
 * all at every close when no run is recorded.
 */
export const COUNT_EVERY_ROWS = 8;

/** Merges the small row groups when a table has collected enough; true when it did. `after` Infinity: never, nothing counted. */
export async function compactIfFragmented(db: Database, after = COMPACT_AFTER): Promise<boolean> {
  if (after === Number.POSITIVE_INFINITY) return false;
  const view = rowGroupsToCount(await recordedRuns(db));
  if (view === undefined) return false;
  await makeRowGroupsView(db, view);
  if ((await smallRowGroups(db)) < after) return false;
  // Every table but job_records: a batch of each table a transaction, the highest batches first.
  for (let b = await planSmallRowGroups(db); b >= 0; b--) {
    await db.transaction(async () => {
      db.checkpointAtCommit();
      await moveSmallRowGroupBatch(db, { b });
    });
  }
  for (const ids of await smallRecordBatches(db, { batchBytes: JOBS_GROUP_RAW_BYTES })) {
    await db.transaction(async () => {
      db.checkpointAtCommit();
      await moveRecordBatch(db, ids);
    });
  }
  return true;
}

/** The row groups a close counts (see COUNT_EVERY_ROWS): every history table's, sync_runs' alone, or none. */
function rowGroupsToCount(runs: RecordedRuns): { runsOnly: boolean } | undefined {
  const { rows, writing, latest_rows, latest_writing } = runs;
  if (rows === 0 || passedMultiple(writing, latest_writing)) return { runsOnly: false };
  if (passedMultiple(rows, latest_rows)) return { runsOnly: true };
  return undefined;
}

/** Whether the last `added` of `total` took it to or past a multiple of COUNT_EVERY_ROWS. */
function passedMultiple(total: number, added: number): boolean {
  return added > 0 && Math.floor(total / COUNT_EVERY_ROWS) > Math.floor((total - added) / COUNT_EVERY_ROWS);
}

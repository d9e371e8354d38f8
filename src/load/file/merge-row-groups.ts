/**
 * When and how the small row groups of the history tables are merged. DuckDB appends a run's rows
 * to new row groups (no index on the history tables), so every run that writes leaves about one
 * small row group per table (the bounds: sql/load/stage-create.sql). DuckDB's own merging (vacuum, at checkpoints) packs
 * consecutive row groups into fewer: it rewrites every group of a mergeable run, so it rewrote
 * whole back-filled tails, `raw` included. Writers open with it off (`max_vacuum_tasks = 0`,
 * open-instance.ts).
 *
 * Instead, when a table holds COMPACT_AFTER small row groups, the close moves the rows of the small
 * groups, and only those, into new row groups (sql/queries/merge-small-row-groups.sql) in one
 * transaction; its checkpoint drops the emptied groups. Scans see at most about COMPACT_AFTER small
 * row groups per table, and a merge writes the rows of the runs since the last one, once.
 */
import type { Database } from '../database.js';
import { loadSql } from '../sql-files.js';
import { mergeSmallRowGroups, recordedRuns, smallRowGroups } from '../statements/file-upkeep.js';

/** Small row groups a history table may collect before a close merges them. */
export const COMPACT_AFTER = 64;

/**
 * Sync runs between two counts of the small row groups: the count reads the segments of every
 * column of the history tables (pragma_storage_info, sql/load/row-groups.sql), about 1.2 s of CPU
 * at 100,000 jobs and the buffer pool filled, which every close of a run would pay (BENCHMARKS.md,
 * "A real back-fill of 100,000 jobs"). A close counts when the runs recorded are a multiple of it (none
 * recorded: every close, as the writers of other commands and the tests' leave none), so a table
 * holds at most COMPACT_AFTER small row groups and those of COUNT_EVERY_RUNS - 1 runs.
 */
export const COUNT_EVERY_RUNS = 8;

/** Merges the small row groups when a table has collected enough; true when it did. */
export async function compactIfFragmented(db: Database, after = COMPACT_AFTER): Promise<boolean> {
  if ((await recordedRuns(db)) % COUNT_EVERY_RUNS !== 0) return false;
  await db.run(loadSql('row-groups'));
  if ((await smallRowGroups(db)) < after) return false;
  await db.transaction(() => mergeSmallRowGroups(db));
  return true;
}

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
 * transaction; its checkpoint drops the emptied groups. Scans see at most COMPACT_AFTER small row
 * groups per table, and a merge writes the rows of the runs since the last one, once.
 */
import type { Database } from '../database.js';
import { mergeSmallRowGroups, smallRowGroups } from '../statements/file-upkeep.js';

/** Small row groups a history table may collect before a close merges them. */
export const COMPACT_AFTER = 64;

/** Merges the small row groups when a table has collected enough; true when it did. */
export async function compactIfFragmented(db: Database, after = COMPACT_AFTER): Promise<boolean> {
  if ((await smallRowGroups(db)) < after) return false;
  await db.transaction(() => mergeSmallRowGroups(db));
  return true;
}

/**
 * When a checkpoint may merge row groups (DuckDB calls it vacuum), measured in BENCHMARKS.md
 * (issue 13). DuckDB appends the rows of a run to a new row group of a table without an index, but
 * at every checkpoint it merges trailing row groups that together hold fewer than 2,048 rows: the
 * whole tail is rewritten, `raw` included, so one new job could cost up to 2,047 stored jobs'
 * worth of writes (a table of 1,000 jobs was rewritten whole by every run).
 *
 * So writers open with merging off (`max_vacuum_tasks = 0`, open-instance.ts): a run writes its
 * own rows and nothing else. The small row groups this leaves (about one per table and run that
 * wrote rows) are merged when any table holds COMPACT_AFTER of them: that one checkpoint, at close,
 * rewrites the rows of the runs since the last merge, once. Scans stay fast (at most
 * COMPACT_AFTER small row groups per table) and each row is rewritten a few times, not every run.
 */
import type { Database } from '../database.js';
import { smallRowGroups } from '../statements/file-upkeep.js';

/** Small row groups (< 2,048 rows) a history table may collect before a close merges them. */
export const COMPACT_AFTER = 64;
/** DuckDB's own default of max_vacuum_tasks: merging as usual. */
const DUCKDB_VACUUM_TASKS = 100;

/** Turns merging on for the checkpoint at close when a table has collected enough small row groups. */
export async function compactIfFragmented(db: Database, after = COMPACT_AFTER): Promise<boolean> {
  if ((await smallRowGroups(db)) < after) return false;
  await db.run(`SET max_vacuum_tasks = ${DUCKDB_VACUUM_TASKS}`);
  return true;
}

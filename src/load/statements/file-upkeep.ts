/** Keeping the file in shape: row counts to check a rewrite, small row groups counted and merged. */
import type { Database, RowSource } from '../database.js';
import { queryText } from './queries.js';

/** Rows per table (`t`) of jobs, utterances, words and module_results, in that order. */
export function tableRowCounts(db: RowSource): Promise<{ t: string; n: number }[]> {
  return db.all(queryText('compact-counts'));
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
 * Moves the rows of every history table's small row groups into new ones (see the SQL file); run
 * it in a transaction. The checkpoint after the commit drops the emptied groups.
 */
export async function mergeSmallRowGroups(db: Database): Promise<void> {
  await db.run(queryText('merge-small-row-groups'));
}

/** What keeping the file in shape reads: row counts to check a rewrite, small row groups to merge. */
import type { RowSource } from '../database.js';
import { queryText } from './queries.js';

/** Rows per table (`t`) of jobs, utterances, words and module_results, in that order. */
export function tableRowCounts(db: RowSource): Promise<{ t: string; n: number }[]> {
  return db.all(queryText('compact-counts'));
}

/** The most row groups of under 2,048 rows any table that grows with the history holds. */
export async function smallRowGroups(db: RowSource): Promise<number> {
  const [row] = await db.all<{ small: number }>(queryText('compact-small-row-groups'));
  return Number(row?.small ?? 0);
}

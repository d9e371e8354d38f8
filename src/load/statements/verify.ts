/**
 * The invariants no index enforces (src/load/verify.ts): each check returns one `id` row per job
 * (or run) that breaks it; each repair runs in the caller's transaction.
 */
import { listValue } from '@duckdb/node-api';
import type { Database, RowSource } from '../database.js';
import { queryText } from './queries.js';

/** A job id, or `run_id/kind` for runs. */
export type BrokenRow = { readonly id: string };
export type BrokenCheck = (db: RowSource) => Promise<BrokenRow[]>;

/** Ids stored more than once in `jobs`. */
export const duplicateJobIds: BrokenCheck = (db) => db.all(queryText('verify-jobs-duplicate-ids'));
/** Jobs whose `raw` is not the text its content_hash was taken of (reads every `raw`). */
export const hashMismatchJobs: BrokenCheck = (db) => db.all(queryText('verify-jobs-hash-mismatch'));
/**
 * Rows a duplicate check groups in one statement. Grouping 8.3M words by their key fit a reader's
 * 180 MiB (spilling); 83M did not ("could not allocate block"; BENCHMARKS.md, "A history of 100,000 jobs"), so a check
 * of more rows runs in parts, each the jobs of one bucket of the hash of job_id.
 */
export const ROWS_PER_PART = 4_000_000;

/** Rows of the child tables whose duplicate checks group every row. */
export async function childRowCounts(db: RowSource): Promise<{ utterances: number; words: number }> {
  const [row] = await db.all<{ utterances: number; words: number }>(queryText('verify-child-counts'));
  return { utterances: Number(row?.utterances ?? 0), words: Number(row?.words ?? 0) };
}

/** Jobs with an utterance stored twice on its natural key. */
export const duplicateUtteranceJobs: BrokenCheck = async (db) =>
  inParts((await childRowCounts(db)).utterances, (part) =>
    db.all(queryText('verify-utterances-duplicates'), { ...part }),
  );
/** Jobs with a word stored twice on its natural key. */
export const duplicateWordJobs: BrokenCheck = async (db) =>
  inParts((await childRowCounts(db)).words, (part) => db.all(queryText('verify-words-duplicates'), { ...part }));

/** One part of a check run in parts: the jobs whose hash of job_id is `part` modulo `parts`. */
export interface Part {
  readonly parts: number;
  readonly part: number;
}

/** A check of `rows` rows, run in parts of about `rowsPerPart` each (hash buckets of job_id). */
export async function inParts(
  rows: number,
  check: (part: Part) => Promise<BrokenRow[]>,
  rowsPerPart = ROWS_PER_PART,
): Promise<BrokenRow[]> {
  const parts = Math.max(1, Math.ceil(rows / rowsPerPart));
  const found: BrokenRow[] = [];
  for (let part = 0; part < parts; part++) found.push(...(await check({ parts, part })));
  return found;
}
/** Job ids of utterances of no stored job. */
export const orphanUtteranceJobs: BrokenCheck = (db) => db.all(queryText('verify-utterances-orphans'));
/** Job ids of words of no stored utterance. */
export const orphanWordJobs: BrokenCheck = (db) => db.all(queryText('verify-words-orphans'));
/** Job ids of module results of no stored job. */
export const orphanModuleJobs: BrokenCheck = (db) => db.all(queryText('verify-modules-orphans'));
/** Runs recorded twice for a kind, as `run_id/kind`. */
export const duplicateRuns: BrokenCheck = (db) => db.all(queryText('verify-runs-duplicates'));

/** The jobs the next dropBrokenJobs drops (temp table `_tsync_broken`, this connection's). */
export async function markBrokenJobs(db: Database, params: { ids: readonly string[] }): Promise<void> {
  await db.run(queryText('verify-repair-broken'), { ids: listValue([...params.ids]) });
}

/** Drops the jobs markBrokenJobs named, with every row of their children. */
export async function dropBrokenJobs(db: Database): Promise<void> {
  await db.run(queryText('verify-repair-drop-jobs'));
}

/** Deletes child rows of no stored job or utterance. */
export async function deleteOrphans(db: Database): Promise<void> {
  await db.run(queryText('verify-repair-orphans'));
}

/** Keeps one row per (run_id, kind): the first one stored. */
export async function dedupeRuns(db: Database): Promise<void> {
  await db.run(queryText('verify-repair-runs'));
}

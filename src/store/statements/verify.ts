/**
 * The invariants no index enforces (src/store/verify.ts): each check returns one `id` row per job
 * (or run) that breaks it; each repair runs in the caller's transaction.
 */
import type { Database, RowSource } from '../database.js';
import { countOf, only, queryText } from './queries.js';

/** A job id, or `run_id/kind` for runs. */
export type BrokenRow = { readonly id: string };
export type BrokenCheck = (db: RowSource) => Promise<BrokenRow[]>;

export const duplicateJobIds: BrokenCheck = (db) => db.all(queryText('verify-jobs-duplicate-ids'));
/** Jobs whose record's `raw` is not the text its content_hash was taken of (reads every `raw`). */
export const hashMismatchJobs: BrokenCheck = (db) => db.all(queryText('verify-records-hash-mismatch'));
/** Jobs without exactly one record in job_records (reads its ids only). */
export const recordlessJobs: BrokenCheck = (db) => db.all(queryText('verify-records-per-job'));
export const orphanRecordJobs: BrokenCheck = (db) => db.all(queryText('verify-records-orphans'));
/** Jobs with an utterance stored twice on its natural key (grouped a list of utterances at a time). */
export const duplicateUtteranceJobs: BrokenCheck = (db) => db.all(queryText('verify-utterances-duplicates'));

/**
 * Jobs with a word stored twice on its natural key: every word grouped once by a compact key (the
 * hash of its utterance's key, its word_idx >> 6), then the words of the few suspect utterances by
 * the natural key (sql/queries/verify-words-duplicates.sql). `keyShift`: bits dropped from that hash;
 * any value gives the same answer (a test raises it to make every utterance collide).
 */
export const duplicateWordJobs = (db: RowSource, keyShift = 0) =>
  db.all<BrokenRow>(queryText('verify-words-duplicates'), { key_shift: keyShift });

export const orphanUtteranceJobs: BrokenCheck = (db) => db.all(queryText('verify-utterances-orphans'));
export const orphanWordJobs: BrokenCheck = (db) => db.all(queryText('verify-words-orphans'));
export const orphanModuleJobs: BrokenCheck = (db) => db.all(queryText('verify-modules-orphans'));
export const duplicateRuns: BrokenCheck = (db) => db.all(queryText('verify-runs-duplicates'));

/** The jobs the next dropBrokenJobs drops (temp table `_tsync_broken`, this connection's). */
export const markBrokenJobs = (db: Database, params: { ids: readonly string[] }) =>
  db.run(queryText('verify-repair-broken'), only(params, 'ids'));

/** How many jobs markBrokenJobs named are erased: dropBrokenJobs keeps one erased row of each. */
export const erasedBrokenJobs = (db: Database) => countOf(db.all(queryText('verify-repair-erased')), 'n');

/**
 * Drops the jobs markBrokenJobs named, with their records and every row of their children; an
 * erased one keeps one erased row, so that no sync loads its content again.
 */
export const dropBrokenJobs = (db: Database) => db.run(queryText('verify-repair-drop-jobs'));

/** Deletes records and child rows of no stored job or utterance. */
export const deleteOrphans = (db: Database) => db.run(queryText('verify-repair-orphans'));

/** Keeps one row per (run_id, kind): the first one stored. */
export const dedupeRuns = (db: Database) => db.run(queryText('verify-repair-runs'));

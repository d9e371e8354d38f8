/**
 * The invariants of a transcript-sync file that no index enforces (sql/002_no_keys_on_history.sql).
 * Each check is one statement that reads its tables once, so its memory does not grow with the rows.
 */
import type { Database, RowSource } from './database.js';
import * as broken from './statements/verify.js';

export type Repair =
  /** The jobs named are dropped with all their children; an erased job keeps one erased row. */
  | 'drop-jobs'
  /** Child rows of no stored job or utterance are deleted. */
  | 'delete-orphans'
  /** Duplicate run rows are deleted, the first one stored stays. */
  | 'dedupe-runs';

export interface Check {
  readonly name: string;
  /** A row per job (or run) that breaks the invariant. */
  readonly find: broken.BrokenCheck;
  readonly repair: Repair;
  /** Reads every `raw` (as much as the JSON ever received): only with `verify --hashes`. */
  readonly reads?: 'raw';
}

export const CHECKS: readonly Check[] = Object.freeze([
  { name: 'jobs.id is unique', find: broken.duplicateJobIds, repair: 'drop-jobs' },
  { name: 'job_records holds one record per job', find: broken.recordlessJobs, repair: 'drop-jobs' },
  {
    name: 'jobs.content_hash is the sha1 of job_records.raw',
    find: broken.hashMismatchJobs,
    repair: 'drop-jobs',
    reads: 'raw',
  },
  {
    name: 'utterances unique on (job_id, source, utterance_idx)',
    find: broken.duplicateUtteranceJobs,
    repair: 'drop-jobs',
  },
  {
    name: 'words unique on (job_id, source, utterance_idx, word_idx)',
    find: broken.duplicateWordJobs,
    repair: 'drop-jobs',
  },
  { name: 'utterances belong to a job', find: broken.orphanUtteranceJobs, repair: 'delete-orphans' },
  { name: 'words belong to an utterance', find: broken.orphanWordJobs, repair: 'delete-orphans' },
  { name: 'module_results belong to a job', find: broken.orphanModuleJobs, repair: 'delete-orphans' },
  { name: 'job_records belong to a job', find: broken.orphanRecordJobs, repair: 'delete-orphans' },
  { name: 'sync_runs unique on (run_id, kind)', find: broken.duplicateRuns, repair: 'dedupe-runs' },
]);

/** Ids shown per broken check. */
const SAMPLE = 5;

export type CheckResult = Pick<Check, 'name' | 'repair'> & {
  readonly ok: boolean;
  /** Jobs (or runs) that break it. */
  readonly count: number;
  /** The first few of them, sorted. */
  readonly sample: readonly string[];
};

export interface VerifyOptions {
  /** Also check every `raw` against its hash (reads all of it; default false). */
  readonly hashes?: boolean;
  /** Only the checks that read `raw` (with hashes) or only those that do not; default every one. */
  readonly only?: 'raw' | 'rows';
}

export async function verifyFile(db: RowSource, options: VerifyOptions = {}): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of CHECKS) {
    if (check.reads === 'raw' && (!options.hashes || options.only === 'rows')) continue;
    if (check.reads !== 'raw' && options.only === 'raw') continue;
    const ids = await brokenIds(db, check);
    results.push({
      name: check.name,
      ok: ids.length === 0,
      count: ids.length,
      sample: ids.sort().slice(0, SAMPLE),
      repair: check.repair,
    });
  }
  return results;
}

/** Results of verifyFile's `only` parts, in the order of CHECKS. */
export function inCheckOrder(results: readonly CheckResult[]): CheckResult[] {
  const rank = (r: CheckResult) => CHECKS.findIndex((c) => c.name === r.name);
  return [...results].sort((a, b) => rank(a) - rank(b));
}

/** Ids of what breaks a check: none on a sound file, so reading them whole costs nothing then. */
const brokenIds = async (db: RowSource, check: Check) => (await check.find(db)).map((row) => String(row.id));

/** Repairs every broken invariant of `results` in one transaction; `droppedJobs`: `sync --full` loads them again. */
export async function repairFile(
  db: Database,
  results: readonly CheckResult[],
): Promise<{ droppedJobs: number }> {
  const failed = results.filter((r) => !r.ok);
  return db.transaction(async () => {
    let droppedJobs = 0;
    const dropping = CHECKS.filter((c) => c.repair === 'drop-jobs' && failed.some((r) => r.name === c.name));
    if (dropping.length > 0) {
      const ids = new Set<string>();
      for (const check of dropping) for (const id of await brokenIds(db, check)) ids.add(id);
      await broken.markBrokenJobs(db, { ids: [...ids] });
      droppedJobs = ids.size - (await broken.erasedBrokenJobs(db));
      await broken.dropBrokenJobs(db);
    }
    // Dropping jobs can leave no orphans (children go with them); orphans found before still go.
    if (failed.some((r) => r.repair === 'delete-orphans')) await broken.deleteOrphans(db);
    if (failed.some((r) => r.repair === 'dedupe-runs')) await broken.dedupeRuns(db);
    return { droppedJobs };
  });
}

/**
 * What a `--full` run adds: every id the walk saw goes into a table that lives as long as the walk
 * (docs/decisions/0044), and once the whole list has been walked, jobs of the kind created before
 * the run started that were not seen are marked `deleted_at`. Ids are taken from every record
 * listed (PageRecords.listedIds), so a job that upstream still lists but that failed validation
 * (quarantined) is not mistaken for a deleted one. A deleted job seen again is restored by the
 * loader.
 */
import type { JobKind } from '../kinds.js';
import type { Database } from '../load/database.js';
import { eraseJobs } from '../load/erase.js';
import { addSeenIds, createSeenSet, dropSeenSet, markUnseenJobsDeleted } from '../load/statements/seen.js';
import { guardDeletions } from './deletion-guard.js';

export async function startSeenSet(db: Database): Promise<void> {
  await createSeenSet(db);
}

/** After the walk's final transaction, or when it stopped: the seen ids are not kept in the file. */
export async function endSeenSet(db: Database): Promise<void> {
  await dropSeenSet(db);
}

/** `ids`: of every record listed, valid or not (PageRecords.listedIds). */
export async function addSeen(db: Database, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await addSeenIds(db, { ids });
}

/** What a reconcile does with the jobs the service no longer lists. */
export interface DeletionPolicy {
  readonly maxDeleteShare: number;
  /** `erase`: the range's jobs marked deleted (now or by an earlier run) are erased too. */
  readonly onDelete?: 'mark' | 'erase';
  /** Keys of custom_metadata an erased job keeps. */
  readonly eraseKeepMetadata?: readonly string[];
}

/**
 * Returns how many jobs were marked deleted. Call inside the transaction of the final checkpoint.
 * Marks nothing and throws when more than `maxDeleteShare` of the kind would go (deletion-guard.ts).
 * `after`: the walk's lower bound (a `--window` reconcile); older jobs were not walked, so not judged.
 * With `onDelete: 'erase'`, the marked jobs are erased in the same transaction (src/load/erase.ts);
 * the file is rewritten without their bytes after the run (src/pipeline.ts).
 */
export async function markUnseenDeleted(
  db: Database,
  kind: JobKind,
  before: Date,
  now: Date,
  policy: DeletionPolicy,
  after: Date | null = null,
): Promise<number> {
  await guardDeletions(db, kind, before, policy.maxDeleteShare, after);
  const marked = await markUnseenJobsDeleted(db, {
    kind,
    after: after?.toISOString() ?? null,
    before: before.toISOString(),
    now: now.toISOString(),
  });
  if (policy.onDelete === 'erase') {
    await eraseJobs(db, {
      selection: { kind, deleted: true, before, ...(after ? { after } : {}) },
      selector: 'deleted-upstream',
      keep: policy.eraseKeepMetadata ?? [],
      now,
    });
  }
  return marked;
}

/**
 * What a `--full` run adds: every id the walk saw goes into a table that lives as long as the walk
 * (docs/decisions/0010-reconcile-recent-often-history-weekly-with-a-guard.md), and once the whole list has been walked, the kind's stored jobs created
 * before the run started that were not seen are judged (judgeUnseen): older than the retention's
 * expiry line they are expired, newer they vanished upstream and are marked `deleted_at`
 * (retention.ts). Ids are taken from every record listed (PageRecords.listedIds), so a job that
 * upstream still lists but that failed validation (quarantined) is not mistaken for a gone one. A
 * deleted or expired job seen again is restored by the loader.
 */
import type { JobKind } from '../kinds.js';
import {
  addSeenIds,
  type Database,
  eraseJobs,
  markUnseenJobsDeleted,
  markUnseenJobsExpired,
} from '../store/index.js';
import { guardDeletions } from './deletion-guard.js';
import type { RetentionEdges } from './retention.js';
import type { Checkpoint, SyncPlan } from './types.js';

/** `ids`: of every record listed, valid or not (PageRecords.listedIds). */
export async function addSeen(db: Database, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await addSeenIds(db, { ids });
}

/** What a reconcile does with the jobs the service no longer lists. */
export interface DeletionPolicy {
  readonly maxDeleteShare: number;
  /** `erase`: the range's jobs marked deleted (now or by an earlier run) are erased too. */
  readonly onDelete: 'mark' | 'erase';
  /** Keys of custom_metadata an erased job keeps. */
  readonly eraseKeepMetadata: readonly string[];
}

/** A range of created_at: `after` inclusive (null: no lower bound), `before` exclusive. */
export interface CreatedRange {
  readonly after: Date | null;
  readonly before: Date;
}

/** How many unseen jobs a --full run marked each way. */
export interface UnseenJudged {
  readonly deleted: number;
  readonly expired: number;
}

/**
 * Judges the kind's stored jobs the walk did not see; call inside the transaction of the final
 * checkpoint. `walk`: the walk's bounds (its start, null for no lower bound; the run's start).
 * Expired: older than the expiry line, and walked or below the horizon (the service lists nothing
 * older); one between the horizon and a `--window` walk's start may still be listed, and waits for
 * a whole-history reconcile. Deleted: the rest (markVanished), unless more than `maxDeleteShare` of
 * the judged range would go: then it marks nothing and throws (deletion-guard.ts), expired jobs
 * counting on neither side. With `onDelete: 'erase'`, the range's jobs marked deleted (now or by an
 * earlier run) are erased in the same transaction (src/store/erase.ts); the file is rewritten
 * without their bytes after the run (src/pipeline.ts).
 */
export async function judgeUnseen(
  db: Database,
  kind: JobKind,
  walk: CreatedRange,
  edges: RetentionEdges,
  now: Date,
  policy: DeletionPolicy,
): Promise<UnseenJudged> {
  const vanished = vanishedRange(walk, edges);
  await guardDeletions(db, kind, vanished.before, policy.maxDeleteShare, vanished.after);
  const expired = await markUnseenJobsExpired(db, {
    kind,
    after: walk.after?.toISOString() ?? null,
    before: edges.expiredBefore.toISOString(),
    horizon: edges.horizon.toISOString(),
    now: now.toISOString(),
  });
  const deleted = await markVanished(db, kind, vanished, now);
  if (policy.onDelete === 'erase') {
    await eraseJobs(db, {
      selection: { kind, deleted: true, before: vanished.before, after: vanished.after },
      selector: 'deleted-upstream',
      keep: policy.eraseKeepMetadata,
      now,
    });
  }
  return { deleted, expired };
}

/**
 * Where an unseen job was deleted upstream: created in the walked range and after the expiry line
 * (older ones aged out of the list). Never without a lower bound.
 */
export function vanishedRange(walk: CreatedRange, edges: RetentionEdges): CreatedRange & { after: Date } {
  const line = edges.expiredBefore;
  return { after: walk.after === null || walk.after < line ? line : walk.after, before: walk.before };
}

/** The jobs of `range` the walk did not see, deleted upstream: marked `deleted_at`; returns how many. */
export function markVanished(db: Database, kind: JobKind, range: CreatedRange, now: Date): Promise<number> {
  return markUnseenJobsDeleted(db, {
    kind,
    after: range.after?.toISOString() ?? null,
    before: range.before.toISOString(),
    now: now.toISOString(),
  });
}

/**
 * Where a `--full` run (a reconcile) starts walking. Without `--window` it walks the whole history
 * the service still lists: from the retention horizon (retention.ts; `--service-retention`), as
 * the service lists nothing older, so years of history cost no more than the retention's worth.
 * With `--window 7d` it walks only jobs created in the last 7 days, where deletions and edits
 * upstream are most likely, and only those can be marked deleted (judgeUnseen takes the same
 * bound). A rarer whole-history run finds what happened to older jobs.
 *
 * The window never starts later than an incremental run would (the watermark minus the lookback):
 * a reconcile moves the watermark to its start time like any run, so it must also cover any gap an
 * incremental run has not walked yet. A file never synced gets the whole history.
 */
export function reconcileStart(
  checkpoint: Checkpoint,
  plan: SyncPlan,
  startedAt: Date,
  horizon: Date,
): Date | null {
  if (checkpoint.watermark === null) return null;
  const window = plan.reconcileWindow;
  const recent =
    window === null ? horizon.getTime() : Math.max(startedAt.getTime() - window, horizon.getTime());
  const incremental = Date.parse(checkpoint.watermark) - plan.lookback;
  return new Date(Math.min(recent, incremental));
}

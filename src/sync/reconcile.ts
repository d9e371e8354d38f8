/**
 * What a `--full` run adds: every id the walk saw goes into a table that lives as long as the walk
 * (docs/decisions/0010-reconcile-recent-often-history-weekly-with-a-guard.md), and once the whole list has been walked, the kind's stored jobs created
 * before the run started that were not seen are judged (judgeUnseen): older than the retention's
 * expiry line they are expired, newer they vanished upstream and are marked `deleted_at`
 * (retention.ts). Ids are taken from every record listed (PageRecords.listedIds), so a job that
 * upstream still lists but that failed validation (quarantined) is not mistaken for a gone one. A
 * deleted or expired job seen again is restored by the loader.
 *
 * The deletion guard (guardDeletions): a walk that missed part of the list (a glitch the anomaly
 * checks did not catch, a filter gone wrong upstream) must not empty the mirror. A run marks at
 * most `maxShare` of the kind's stored jobs deleted (`--max-delete-share`), and always up to
 * DELETE_FLOOR jobs (a small mirror may lose a few for real); above that it marks nothing and
 * fails, saying how many and how to proceed. `--max-delete-share 1` lets any share through. The
 * share is of the range judged (judgeUnseen's `vanished`): jobs older than the retention, which
 * leave the list by expiring, are on neither side of it.
 */
import { DeletionGuardError } from '../errors.js';
import type { JobKind } from '../kinds.js';
import {
  countUnseen,
  type Database,
  eraseJobs,
  markUnseenJobsDeleted,
  markUnseenJobsExpired,
} from '../store/index.js';
import type { RetentionEdges } from './retention.js';
import type { Checkpoint, SyncPlan } from './types.js';

/** A range of created_at: `after` inclusive (null: no lower bound), `before` exclusive. */
interface CreatedRange {
  readonly after: Date | null;
  readonly before: Date;
}

/**
 * Judges the kind's stored jobs the walk did not see; call inside the transaction of the final
 * checkpoint. `walk`: the walk's bounds (its start, null for no lower bound; the run's start).
 * Expired: older than the expiry line, and walked or below the horizon (the service lists nothing
 * older); one between the horizon and a `--window` walk's start may still be listed, and waits for
 * a whole-history reconcile. Deleted (`deleted_at`): the rest, unless more than `maxDeleteShare` of
 * the judged range would go: then it marks nothing and throws (guardDeletions), expired jobs
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
  policy: Pick<SyncPlan, 'maxDeleteShare' | 'onDelete' | 'eraseKeepMetadata'>,
): Promise<{ deleted: number; expired: number }> {
  // Where an unseen job was deleted upstream: in the walked range and after the expiry line (older
  // ones aged out of the list). Never without a lower bound.
  const line = edges.expiredBefore;
  const vanished = {
    after: walk.after === null || walk.after < line ? line : walk.after,
    before: walk.before,
  };
  await guardDeletions(db, kind, vanished, policy.maxDeleteShare);
  const expired = await markUnseenJobsExpired(db, {
    kind,
    after: walk.after?.toISOString() ?? null,
    before: line.toISOString(),
    horizon: edges.horizon.toISOString(),
    now: now.toISOString(),
  });
  const deleted = await markUnseenJobsDeleted(db, {
    kind,
    after: vanished.after.toISOString(),
    before: vanished.before.toISOString(),
    now: now.toISOString(),
  });
  if (policy.onDelete === 'erase') {
    await eraseJobs(db, {
      selection: { kind, deleted: true, ...vanished },
      selector: 'deleted-upstream',
      keep: policy.eraseKeepMetadata,
      now,
    });
  }
  return { deleted, expired };
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

/** Deletions always allowed, whatever the share: 10 jobs. */
const DELETE_FLOOR = 10;

/** Throws DeletionGuardError when marking the unseen jobs of `range` would exceed the allowed share. */
async function guardDeletions(
  db: Database,
  kind: JobKind,
  range: { readonly after: Date; readonly before: Date },
  maxShare: number,
): Promise<void> {
  const { unseen, stored } = await countUnseen(db, {
    kind,
    after: range.after.toISOString(),
    before: range.before.toISOString(),
  });
  const allowed = Math.max(DELETE_FLOOR, Math.floor(maxShare * stored));
  if (unseen <= allowed) return;
  const share = stored === 0 ? 100 : Math.round((unseen / stored) * 100);
  throw new DeletionGuardError(
    `the --full run of ${kind} would mark ${unseen} of ${stored} stored jobs deleted (${share}%), more than --max-delete-share ${maxShare} allows (${allowed}); nothing was marked`,
    {
      hint: `if the service really no longer lists them, run \`sync --full --kind ${kind} --max-delete-share 1\` once; otherwise run --full again later`,
    },
  );
}

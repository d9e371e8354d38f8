/**
 * What a `--full` run adds (docs/decisions/0010-reconcile-recent-often-history-weekly-with-a-guard.md):
 * every id the walk saw, of every record listed (a quarantined job is still listed), goes into a
 * table that lives as long as the walk; once the whole list has been walked, the kind's stored jobs
 * created before the run started that were not seen are judged expired or deleted (judgeUnseen). A
 * deleted or expired job seen again is restored by the loader.
 *
 * The deletion guard (guardDeletions): a walk that missed part of the list must not empty the
 * mirror. A run marks at most `--max-delete-share` of the judged range's stored jobs deleted, and
 * always up to DELETE_FLOOR jobs; above that it marks nothing and fails, saying how to proceed.
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

/**
 * Judges the kind's stored jobs the walk did not see; call inside the transaction of the final
 * checkpoint. `walk`: the created_at range walked, `after` inclusive (null: no lower bound), `before`
 * exclusive. Expired: older than the expiry line, and walked or below the horizon (one between the
 * horizon and a `--window` walk's start may still be listed). Deleted: the rest, unless the guard
 * refuses. With `onDelete: 'erase'`, the range's jobs marked deleted (now or by an earlier run) are
 * erased in the same transaction (src/store/erase.ts).
 */
export async function judgeUnseen(
  db: Database,
  kind: JobKind,
  walk: { readonly after: Date | null; readonly before: Date },
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
 * Where a `--full` run (a reconcile) starts walking: the retention horizon (the service lists
 * nothing older), or with `--window` the window's start. Never later than an incremental run would
 * (the watermark minus the lookback): a reconcile moves the watermark to its start time like any
 * run, so it must also cover any gap an incremental run has not walked yet. A file never synced
 * gets the whole history.
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

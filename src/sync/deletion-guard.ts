/**
 * The guard in front of a `--full` run's deletions: a walk that missed part of the list (a glitch
 * the anomaly checks did not catch, a filter gone wrong upstream) must not empty the mirror. A run
 * marks at most `maxShare` of the kind's stored jobs deleted (`--max-delete-share`),
 * and always up to DELETE_FLOOR jobs (a small mirror may lose a few for real); above that it marks
 * nothing and fails, saying how many and how to proceed. `--max-delete-share 1` lets any share through.
 * The share is of the range reconcile.ts judges (vanishedRange): jobs older than the retention,
 * which leave the list by expiring, are on neither side of it.
 */

import { DeletionGuardError } from '../errors.js';
import type { JobKind } from '../kinds.js';
import { countUnseen, type Database } from '../store/index.js';

/** Deletions always allowed, whatever the share: 10 jobs. */
export const DELETE_FLOOR = 10;

/** Throws DeletionGuardError when marking the unseen jobs would exceed the allowed share. */
export async function guardDeletions(
  db: Database,
  kind: JobKind,
  before: Date,
  maxShare: number,
  /** The judged range's lower bound (a `--window` reconcile's, or the retention's expiry line). */
  after: Date | null = null,
): Promise<void> {
  const { unseen, stored } = await countUnseen(db, {
    kind,
    after: after?.toISOString() ?? null,
    before: before.toISOString(),
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

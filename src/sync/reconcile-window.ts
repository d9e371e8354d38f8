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
import type { Checkpoint, SyncPlan } from './types.js';

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

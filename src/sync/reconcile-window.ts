/**
 * Where a `--full` run (a reconcile) starts walking. Without `--window` it walks the whole history:
 * every record ever made, which for years of hour-long transcripts is gigabytes a run. With
 * `--window 7d` it walks only jobs created in the last 7 days, where deletions and edits upstream
 * are most likely, and only those can be marked deleted (markUnseenDeleted takes the same bound).
 * A rarer whole-history run finds what happened to older jobs.
 *
 * The window never starts later than an incremental run would (the watermark minus the lookback):
 * a windowed reconcile moves the watermark to its start time like any run, so it must also cover
 * any gap an incremental run has not walked yet. A file never synced gets the whole history.
 */
import type { Checkpoint, SyncPlan } from './types.js';

export function reconcileStart(checkpoint: Checkpoint, plan: SyncPlan, startedAt: Date): Date | null {
  if (plan.reconcileWindow === null || checkpoint.watermark === null) return null;
  const recent = startedAt.getTime() - plan.reconcileWindow;
  const incremental = Date.parse(checkpoint.watermark) - plan.lookback;
  return new Date(Math.min(recent, incremental));
}

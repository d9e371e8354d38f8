/**
 * Jobs seen `queued` or `processing` are fetched again on every run until they reach `done` or
 * `error`, even when they are older than the window. The service cannot fetch one job by id through
 * the list endpoints, so they are asked for with windows around their created_at (pendingWindows).
 * Each window is walked like a slice and loaded by the window's writer (writer/writer.ts).
 *
 * Pending jobs whose places in the stored list lie within one page of each other share one window;
 * a lone one gets ±1 ms around its instant. Jobs sharing an instant always share a window, however
 * many: its walk follows `next` links.
 */
import type { Paging, Slice } from '../extract/index.js';
import type { JobKind } from '../kinds.js';
import { type Database, listPendingJobs, type PendingJob } from '../store/index.js';
import type { KindReport, KindRunContext, RunCounters } from './kind-summary.js';
import type { Checkpoint } from './types.js';
import type { SliceSource } from './writer/fetch-slices.js';
import { type Claims, walkAndLoad } from './writer/writer.js';

/** Pending jobs of a kind created in [since, before). */
export function pendingJobs(db: Database, kind: JobKind, since: Date, before: Date): Promise<PendingJob[]> {
  return listPendingJobs(db, { kind, since: since.toISOString(), before: before.toISOString() });
}

/**
 * The windows of `pending` (sorted by created_at, as listPendingJobs returns them), each cut when a
 * fetcher takes it, at the page size the walk has learnt by then: a window holds the next pending
 * job and those after it that lie within that many stored jobs of it.
 */
function pendingWindows(pending: readonly PendingJob[], paging: Paging): SliceSource {
  let next = 0;
  return {
    count: pending.length,
    next: (): Slice | undefined => {
      const first = pending[next];
      if (first === undefined) return undefined;
      const firstAt = Date.parse(first.created_at);
      let lastAt = firstAt;
      let end = next + 1;
      for (; end < pending.length; end++) {
        const job = pending[end]!;
        const at = Date.parse(job.created_at);
        if (at !== lastAt && job.position - first.position >= paging.sizer.limit) break;
        lastAt = at;
      }
      next = end;
      return { after: new Date(firstAt), before: new Date(lastAt + 1) };
    },
  };
}

/**
 * Re-checks the kind's pending jobs created in [now - pendingMaxAge, windowAfter) (younger ones the
 * window walks anyway), `concurrency` windows at a time. A run stopped in between re-checks what is
 * still pending next time.
 */
export async function recheckPending(
  ctx: KindRunContext,
  kind: JobKind,
  windowAfter: Date,
  paging: Paging,
  state: { readonly counters: RunCounters; readonly report: KindReport; readonly checkpoint: Checkpoint },
): Promise<void> {
  const since = new Date(ctx.startedAt.getTime() - ctx.plan.pendingMaxAge);
  const pending = await pendingJobs(ctx.db, kind, since, windowAfter);
  if (pending.length === 0) return;
  const { counters, report, checkpoint } = state;
  // A pending job is re-checked, once, by the transaction that loads it as listed; the writer takes
  // the count back with the loads of a transaction that rolls back.
  const unchecked = new Set(pending.map((job) => job.id));
  const claims: Claims = {
    complete: () => {},
    listed: (ids) => {
      for (const id of ids) if (unchecked.delete(id)) counters.pendingRechecked += 1;
    },
    // The re-check moves no watermark: each of its commits saves the run's starting checkpoint.
    checkpoint: () => checkpoint,
    committed: () => {},
  };
  await walkAndLoad(ctx, kind, pendingWindows(pending, paging), undefined, paging, {
    counters,
    report,
    claims,
  });
}

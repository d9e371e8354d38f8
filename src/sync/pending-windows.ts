/**
 * The windows that re-check pending jobs. A job cannot be fetched by id through the list
 * endpoints, so a pending job is asked for with a window around its created_at. Pending jobs whose
 * places in the stored list lie within one page of each other share one window (one request where
 * each would cost one); a lone one gets ±1 ms around its instant. Jobs sharing an instant always
 * share a window, however many: its walk follows `next` links.
 */
import type { Slice } from '../extract/index.js';
import type { PendingJob } from '../store/index.js';

/**
 * The window of `pending[from]` and of the pending jobs after it (sorted by created_at, as
 * listPendingJobs returns them) that lie within `perPage` stored jobs of it, and the index of the
 * first pending job it leaves out.
 */
export function nextPendingWindow(
  pending: readonly PendingJob[],
  from: number,
  perPage: number,
): { window: Slice; end: number } {
  const first = pending[from];
  if (!first) throw new RangeError(`no pending job at ${from}`);
  const firstAt = Date.parse(first.created_at);
  let lastAt = firstAt;
  let end = from + 1;
  for (; end < pending.length; end++) {
    const job = pending[end]!;
    const at = Date.parse(job.created_at);
    if (at !== lastAt && job.position - first.position >= perPage) break;
    lastAt = at;
  }
  return { window: { after: new Date(firstAt), before: new Date(lastAt + 1) }, end };
}

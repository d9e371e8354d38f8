/**
 * Pages that contradict themselves. Offset paging says little, but enough to catch a glitch before
 * it passes for the end of the list (and a `--full` run marks the rest deleted):
 * - an empty page with a `next` link;
 * - a page with fewer items than the limit it was served with (`next.limit`, else the one asked)
 *   that still links onward, past the items it skipped (a `next` right after the items served is a
 *   silent server-side cap, and is followed);
 * - a list that ends (no `next`) before the count an earlier page promised (a page with `next`
 *   promises at least one item past it): the total shrank under the walk.
 * Such a page is asked again (twice, after the plan's pause and then twice that: 200 ms and 400 ms
 * by default); the caller decides what a contradiction that persists means. An offset the service
 * refuses (400/422) after it served the same filters at a smaller offset is an offset cap, named as
 * such.
 */
import { ListingAnomalyError, ProtocolError, UpstreamError } from '../errors.js';
import type { ListName } from '../kinds.js';
import { sleep } from '../util/sleep.js';
import type { Page } from './listing.js';

type PageFacts = Pick<Page, 'offset' | 'limit' | 'next' | 'ids'>;

/** Times a contradicting page is asked again before the contradiction counts as real. */
const ANOMALY_RETRIES = 2;
/**
 * ms before a contradicting page is asked again the first time (SyncPlan.anomalyPauseMs); the n-th
 * time waits n times that. Long enough for a replica or a cache in front of the listing to settle.
 */
export const DEFAULT_ANOMALY_PAUSE_MS = 200;

export interface RecheckOptions {
  /** ms before the first asking again (SyncPlan.anomalyPauseMs; DEFAULT_ANOMALY_PAUSE_MS by default). */
  readonly anomalyPauseMs: number;
  readonly signal?: AbortSignal | undefined;
  /** Hears of every contradiction, also one that asking again cleared. */
  readonly onAnomaly?: () => void;
}

/** What contradicts itself in `page`, in words; undefined when nothing does. */
export function anomalyOf(page: PageFacts, promised: number): string | undefined {
  const served = Math.min(page.limit, page.next?.limit ?? page.limit);
  if (page.next !== null && page.ids.length === 0) return 'an empty page with a next link';
  // A short page whose next link goes on right after it is a server-side cap, not a contradiction.
  const continues = page.next !== null && page.next.offset === page.offset + page.ids.length;
  if (page.next !== null && page.ids.length < served && !continues) {
    return `a page of ${page.ids.length} items, fewer than the ${served} it was served with, with a next link`;
  }
  if (page.next === null && page.offset + page.ids.length < promised) {
    return `the list ended after ${page.offset + page.ids.length} items where an earlier page promised at least ${promised}`;
  }
  return undefined;
}

/** The fewest items the list holds, going by this page: one past it when it links onward. */
export function promisedBy(page: PageFacts, before: number): number {
  return page.next === null ? before : Math.max(before, page.offset + page.ids.length + 1);
}

/** Asks again while the page contradicts itself; returns the last page and what still contradicts. */
export async function consistentPage<P extends PageFacts>(
  first: P,
  ask: () => Promise<P>,
  promised: number,
  { anomalyPauseMs, signal, onAnomaly }: RecheckOptions,
): Promise<{ page: P; anomaly: string | undefined }> {
  let page = first;
  let anomaly = anomalyOf(page, promised);
  if (anomaly !== undefined) onAnomaly?.();
  for (let attempt = 1; anomaly !== undefined && attempt <= ANOMALY_RETRIES; attempt++) {
    await sleep(anomalyPauseMs * attempt, signal);
    page = await ask();
    anomaly = anomalyOf(page, promised);
  }
  return { page, anomaly };
}

export function anomalyError(list: ListName, offset: number, anomaly: string): ListingAnomalyError {
  return new ListingAnomalyError(
    `the ${list} list contradicted itself at offset ${offset}: ${anomaly} (asked ${ANOMALY_RETRIES + 1} times)`,
    { hint: 'nothing was marked deleted; the next run walks again (report it upstream if it persists)' },
  );
}

/** A 400/422: at an offset the same filters were served at offset 0, the service caps offsets. */
export function isRefusal(error: unknown): error is UpstreamError {
  return error instanceof UpstreamError && (error.status === 400 || error.status === 422);
}

/** A 400/422 at `offset` after `servedOffset` was served the same filters is an offset cap; else `error`. */
export function offsetCapError(
  error: unknown,
  list: ListName,
  offset: number,
  servedOffset: number,
): unknown {
  if (!isRefusal(error) || offset <= servedOffset) return error;
  return new ListingAnomalyError(
    `the service refused offset ${offset} of the ${list} list (HTTP ${error.status}) after serving offset ${servedOffset} with the same filters: it caps offsets somewhere in between`,
    {
      cause: error,
      hint: 'lower --slice-jobs (TSYNC_SLICE_JOBS) below the cap so that no slice is paged that deep',
    },
  );
}

/** A next link that does not move forward would loop for ever; no retry can fix it. */
export function assertAdvances(page: PageFacts): void {
  if (page.next !== null && page.next.offset <= page.offset) {
    throw new ProtocolError(`the service's next link does not advance (offset ${page.next.offset})`, {
      retryable: false,
      hint: 'the service broke its paging contract; report it upstream',
    });
  }
}

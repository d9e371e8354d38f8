/**
 * Fetchers: up to `concurrency` slices are walked at once (a latency-bound backfill gains almost
 * linearly), each pushing its pages into the shared bounded queue, then a `done` marker. Slices are
 * handed out oldest first, so the writer's watermark can advance early. The client's rate limit
 * is shared by all fetchers. Each page is normalized here (src/normalize/page-records.ts) as it
 * arrives, while the writer waits on DuckDB, and only its records are queued.
 */
import type { ListName } from '../../extract/index.js';
import type { Listing, Page } from '../../extract/listing.js';
import type { PageBudget } from '../../extract/walk/bounded-page.js';
import type { PageSizer } from '../../extract/walk/page-sizer.js';
import type { Slice } from '../../extract/walk/slices.js';
import { walkSlice } from '../../extract/walk/walk-slice.js';
import { normalizePage } from '../../normalize/page-records.js';
import type { PageQueue, QueueMessage } from './page-queue.js';

export interface FetchOptions {
  readonly concurrency: number;
  /** Items per page: --page-size, fewer for big records; shared with the kind's first page and probes. */
  readonly sizer: PageSizer;
  readonly budget: PageBudget;
  /** ms before a contradicting page is asked again (page-anomalies.ts). */
  readonly anomalyPauseMs: number;
  readonly signal: AbortSignal;
  readonly onRestart: () => void;
  /** A page contradicted itself (walk-slice.ts WalkOptions.onAnomaly). */
  readonly onAnomaly?: () => void;
}

/**
 * Resolves when every slice was walked, or rejects with the first fetch error (after the others
 * stopped). Closes the queue either way, so the writer drains it and ends.
 */
export async function fetchSlices(
  client: Listing,
  list: ListName,
  slices: readonly Slice[],
  firstPage: Page | undefined,
  queue: PageQueue<QueueMessage>,
  options: FetchOptions,
): Promise<void> {
  let nextSlice = 0;
  let firstError: { error: unknown } | undefined;
  // The first failure stops the other fetchers too: the run ends with what is committed.
  const stop = new AbortController();
  const onAbort = () => stop.abort(options.signal.reason);
  options.signal.addEventListener('abort', onAbort, { once: true });
  const walkOptions = {
    sizer: options.sizer,
    budget: options.budget,
    anomalyPauseMs: options.anomalyPauseMs,
    signal: stop.signal,
    onRestart: options.onRestart,
    ...(options.onAnomaly ? { onAnomaly: options.onAnomaly } : {}),
  };
  // The window's first page is the first page of its only slice: reused once, then let go.
  let reuse = slices.length === 1 ? firstPage : undefined;
  const walk = async (index: number, slice: Slice): Promise<void> => {
    const first = reuse;
    reuse = undefined;
    for await (const page of walkSlice(client, list, slice, walkOptions, first)) {
      await queue.push({ type: 'page', slice: index, records: normalizePage(page) });
    }
    await queue.push({ type: 'done', slice: index });
  };
  const fetcher = async (): Promise<void> => {
    while (nextSlice < slices.length && !stop.signal.aborted) {
      const index = nextSlice++;
      try {
        await walk(index, slices[index]!);
      } catch (error) {
        firstError ??= { error };
        stop.abort(error);
        return;
      }
    }
  };
  try {
    const workers = Array.from({ length: Math.min(options.concurrency, slices.length) }, fetcher);
    await Promise.all(workers);
    if (firstError) throw firstError.error;
  } finally {
    options.signal.removeEventListener('abort', onAbort);
    queue.close();
  }
}

/**
 * Walks one slice of a list newest first, page by page, so that no surviving job is skipped even
 * when jobs are deleted while the walk is under way: each page after the first is asked from one
 * place earlier (`offset - 1`), and its first item must be the last item of the page before (the
 * anchor). When it is not, something moved and the walk starts the slice again. Insertions only
 * repeat an item, which the idempotent loader absorbs.
 *
 * Each page is bounded by bytes (getBoundedPage): an answer that grows past `--page-bytes` is
 * abandoned and asked again with at most half the `limit`, down to one item, whose answer may grow
 * to the record ceiling (`--max-record-bytes`); a record bigger than that fails the kind.
 */
import { ProtocolError, ResponseTooLargeError } from '../errors.js';
import type { ListName } from '../kinds.js';
import { formatBytes } from '../util/bytes.js';
import type { ListParams } from './client-options.js';
import { type Listing, type Page, pageOf } from './listing.js';
import {
  anomalyError,
  assertAdvances,
  consistentPage,
  offsetCapError,
  promisedBy,
  type RecheckOptions,
} from './page-anomalies.js';
import type { PageSizer } from './page-sizer.js';

/** A time slice of a list, half-open by created_at. */
export interface Slice {
  /** Inclusive lower bound; null: no lower bound. */
  readonly after: Date | null;
  /** Exclusive upper bound. */
  readonly before: Date;
}

/** What a kind's requests share: the page sizer (learns record sizes), the byte budget, the recheck pause. */
export interface Paging extends Pick<RecheckOptions, 'anomalyPauseMs'> {
  readonly sizer: PageSizer;
  /** Bytes a page and a record may have (getBoundedPage). */
  readonly budget: PageBudget;
}

export interface WalkOptions extends Paging, RecheckOptions {
  /** How many times a slice may start again before the run gives up (it retries next run). */
  readonly maxRestarts?: number;
  /** Called when a shift was seen and the slice starts again. */
  readonly onRestart?: () => void;
}

export function sliceParams(slice: Slice): { afterDate?: Date; beforeDate: Date } {
  // `after_date` is exclusive in the simulator and unknown upstream; 1 ms earlier makes the
  // inclusive bound of the slice hold either way (a repeated boundary job is harmless).
  return slice.after
    ? { afterDate: new Date(slice.after.getTime() - 1), beforeDate: slice.before }
    : { beforeDate: slice.before };
}

/**
 * A page that still contradicts itself after being asked again ends the walk with a
 * ListingAnomalyError, except a list that ended early: jobs deleted ahead of the walk do that too,
 * so the slice is walked once more, and only the same contradiction at the same offset again fails.
 */
export async function* walkSlice(
  client: Listing,
  list: ListName,
  slice: Slice,
  options: WalkOptions,
  firstPage?: Page,
): AsyncGenerator<Page> {
  const maxRestarts = options.maxRestarts ?? 20;
  const window = sliceParams(slice);
  // Served once, then let go: a parameter read in the loop would keep the page alive for the slice.
  let unserved = firstPage;
  const endedEarlyAt = new Set<number>();
  for (let restart = 0; ; restart++) {
    if (restart > maxRestarts) {
      throw new ProtocolError(
        `the list kept changing under the walk (${maxRestarts} restarts of one slice)`,
        { retryable: true, hint: 'the next run tries again' },
      );
    }
    let anchor: string | undefined;
    let offset = 0;
    // The fewest items the slice holds, as the next links of the pages so far promised.
    let promised = 0;
    // The deepest offset served so far: a later refusal past it is an offset cap.
    let servedOffset = 0;
    for (;;) {
      options.signal?.throwIfAborted();
      const overlap = anchor === undefined ? 0 : 1;
      const at = offset - overlap;
      const ask = async (): Promise<Page> => {
        try {
          const page = await getBoundedPage(
            client,
            list,
            { ...window, offset: at },
            // The anchor weighs like any item: the whole answer fits the budget, not only the new items.
            { wanted: Math.max(1, options.sizer.limit - overlap), overlap, signal: options.signal },
            options,
          );
          options.sizer.observe(page.ids.length, page.bytes);
          return page;
        } catch (error) {
          throw offsetCapError(error, list, at, servedOffset);
        }
      };
      // The window's first page was seen by the sizer when it was planned.
      const first = unserved ?? (await ask());
      unserved = undefined;
      const checked = await consistentPage(first, ask, promised, options);
      const page = checked.page;
      if (checked.anomaly !== undefined) {
        const endedEarly = page.next === null && !endedEarlyAt.has(at);
        if (!endedEarly) throw anomalyError(list, at, checked.anomaly);
        endedEarlyAt.add(at);
        break;
      }
      servedOffset = Math.max(servedOffset, at);
      promised = promisedBy(page, promised);
      // The anchor (asked again, and left out of the page yielded) must be where it was.
      if (overlap && (page.ids.length === 0 || page.ids[0] !== anchor)) break;
      yield overlap ? pageOf({ ...page, items: page.items.slice(overlap) }) : page;
      if (page.next === null || page.ids.length === overlap) return;
      // No readable id to anchor on (a malformed record): fall back to the plain next offset.
      anchor = page.ids.at(-1);
      assertAdvances(page);
      offset = page.next.offset;
    }
    // Only a shift (the anchor moved, or the list ended early) leaves the walk above without a return.
    options.onRestart?.();
  }
}

export interface PageBudget {
  /** Most bytes of a page's JSON (`--page-bytes`). */
  readonly pageBytes: number;
  /** Most bytes of one record asked alone (`--max-record-bytes`). */
  readonly recordBytes: number;
}

interface BoundedRequest {
  /** New items wanted (the sizer's limit, or fewer). */
  readonly wanted: number;
  /** Items asked for before them, already seen (the walk's anchor): 0 or 1. */
  readonly overlap?: number;
  readonly signal?: AbortSignal | undefined;
}

/** One page of `params` (offset and filters), its limit bounded by bytes as described above. */
export async function getBoundedPage(
  client: Listing,
  list: ListName,
  params: Omit<ListParams, 'limit'>,
  request: BoundedRequest,
  { sizer, budget }: Pick<Paging, 'sizer' | 'budget'>,
): Promise<Page> {
  const overlap = request.overlap ?? 0;
  let limit = Math.max(1, request.wanted);
  for (;;) {
    const asked = limit + overlap;
    const maxBytes = limit === 1 ? Math.max(budget.pageBytes, budget.recordBytes * asked) : budget.pageBytes;
    try {
      const options = { signal: request.signal, maxBytes };
      return await client.getPage(list, { ...params, limit: asked }, options);
    } catch (error) {
      if (!(error instanceof ResponseTooLargeError)) throw error;
      if (limit === 1) {
        throw new ResponseTooLargeError(
          `a ${list} record is larger than the record ceiling of ${formatBytes(budget.recordBytes)} (its page passed ${formatBytes(error.bytes)} asked alone)`,
          {
            bytes: error.bytes,
            maxBytes: error.maxBytes,
            cause: error,
            hint: 'raise --max-record-bytes (TSYNC_MAX_RECORD_BYTES, at most 200MiB) to sync it; the other kind is not held up',
          },
        );
      }
      limit = sizer.tooLarge(asked, error.bytes);
    }
  }
}

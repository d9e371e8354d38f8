/**
 * Pages bounded by bytes, from the first request on. The sizer says how many items fit the page
 * budget (`--page-bytes`) at the record size seen so far, or assumed (1 MiB) before any;
 * the client stops reading an answer that grows past the budget, and the page is asked again with
 * a smaller `limit` (at most half), down to one item. One record alone may be bigger than a page:
 * at `limit` 1 the answer may grow to the record ceiling (`--max-record-bytes`) per item;
 * a record bigger than that fails the kind with a one-line error naming the setting to raise
 * (the other kind still syncs). No answer is ever read past the client's own ceiling either.
 */

import { ResponseTooLargeError } from '../../errors.js';
import type { ListName } from '../../kinds.js';
import { formatBytes } from '../../util/bytes.js';
import type { Listing, Page } from '../listing.js';
import type { ListParams } from '../types.js';
import type { PageSizer } from './page-sizer.js';

export interface PageBudget {
  /** Most bytes of a page's JSON (`--page-bytes`). */
  readonly pageBytes: number;
  /** Most bytes of one record asked alone (`--max-record-bytes`). */
  readonly recordBytes: number;
}

export interface BoundedRequest {
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
  sizer: PageSizer,
  budget: PageBudget,
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
      if (limit === 1) throw recordTooLarge(list, budget, error);
      limit = sizer.tooLarge(asked, error.bytes);
    }
  }
}

function recordTooLarge(
  list: ListName,
  budget: PageBudget,
  error: ResponseTooLargeError,
): ResponseTooLargeError {
  return new ResponseTooLargeError(
    `a ${list} record is larger than the record ceiling of ${formatBytes(budget.recordBytes)} (its page passed ${formatBytes(error.bytes)} asked alone)`,
    {
      bytes: error.bytes,
      maxBytes: error.maxBytes,
      cause: error,
      hint: 'raise --max-record-bytes (TSYNC_MAX_RECORD_BYTES, at most 200MiB) to sync it; the other kind is not held up',
    },
  );
}

/**
 * Walks one slice of a list newest first, page by page, so that no surviving job is skipped even
 * when jobs are deleted while the walk is under way.
 *
 * Offset pagination shifts under deletions: when a job before the current offset disappears, every
 * later job moves one place down and the first one of the next page would be skipped. So each page
 * after the first is asked from one place earlier (`offset - 1`), and its first item must be the
 * last item of the page before (the anchor). When it is not, something moved: the walk starts the
 * slice again (what was already loaded is unchanged and costs no writes). Insertions move jobs up
 * and only repeat an item, which the idempotent loader absorbs.
 *
 * Only `offset` is taken from `next` (it points at /v2/transcription and carries only status,
 * offset and limit); path and filters stay ours. Serving fewer items than asked is followed.
 */
import type { ListingClient, ListName, Page } from '../api/index.js';
import { ProtocolError } from '../errors.js';
import type { PageSizer } from './page-sizer.js';
import { idOf, type Slice } from './slices.js';

export interface SlicePage {
  readonly items: readonly unknown[];
  /** The items' JSON texts as received, when the client could cut them out (Page.texts). */
  readonly texts: readonly string[] | undefined;
  readonly bytes: number;
}

export interface WalkOptions {
  /** Items per page: the configured page size, lowered for big records (shared by a kind's fetchers). */
  readonly sizer: PageSizer;
  /** How many times a slice may start again before the run gives up (it retries next run). */
  readonly maxRestarts?: number;
  readonly signal?: AbortSignal;
  /** Called when a shift was seen and the slice starts again. */
  readonly onRestart?: () => void;
}

const ONE_MS = 1;

export function sliceParams(slice: Slice): { afterDate?: Date; beforeDate: Date } {
  // `after_date` is exclusive in the simulator and unknown upstream; 1 ms earlier makes the
  // inclusive bound of the slice hold either way (a repeated boundary job is harmless).
  return slice.after
    ? { afterDate: new Date(slice.after.getTime() - ONE_MS), beforeDate: slice.before }
    : { beforeDate: slice.before };
}

export async function* walkSlice(
  client: ListingClient,
  list: ListName,
  slice: Slice,
  options: WalkOptions,
  firstPage?: Page,
): AsyncGenerator<SlicePage> {
  const maxRestarts = options.maxRestarts ?? 20;
  const window = sliceParams(slice);
  // Served once, then let go: a parameter read in the loop would keep the page alive for the slice.
  let unserved = firstPage;
  for (let restart = 0; ; restart++) {
    if (restart > maxRestarts) {
      throw new ProtocolError(
        `the list kept changing under the walk (${maxRestarts} restarts of one slice)`,
        true,
        {
          hint: 'the next run tries again',
        },
      );
    }
    let anchor: string | undefined;
    let offset = 0;
    let shifted = false;
    // The page before held fewer items than its served limit: it ended the list when served.
    let previousShort = false;
    for (;;) {
      options.signal?.throwIfAborted();
      const overlap = anchor === undefined ? 0 : 1;
      const reuse = offset === 0 && restart === 0 ? unserved : undefined;
      unserved = undefined;
      const page =
        reuse ??
        (await client.getPage(
          list,
          { ...window, offset: offset - overlap, limit: options.sizer.limit + overlap },
          { signal: options.signal },
        ));
      // The window's first page was seen by the sizer when it was planned.
      if (page !== reuse) options.sizer.observe(page.items.length, page.bytes);
      let items = page.items;
      let texts = page.texts;
      if (overlap) {
        // A `next` past the end of the list (stale, or wrong) after a short page: nothing was
        // after the anchor then, and insertions go before it, so this is the end, not a shift.
        if (items.length === 0 && previousShort) return;
        if (items.length === 0 || idOf(items[0]) !== anchor) {
          shifted = true;
          break;
        }
        items = items.slice(1);
        texts = texts?.slice(1);
      }
      yield { items, texts, bytes: page.bytes };
      if (page.next === null || items.length === 0) return;
      const lastId = idOf(items.at(-1));
      if (lastId === undefined) {
        // No readable id to anchor on (a malformed record): fall back to the plain next offset.
        anchor = undefined;
      } else {
        anchor = lastId;
      }
      const asked = offset - overlap;
      previousShort = page.items.length < (page.next.limit ?? page.limit);
      if (page.next.offset <= asked) {
        throw new ProtocolError(
          `the service's next link does not advance (offset ${page.next.offset})`,
          false,
        );
      }
      offset = page.next.offset;
    }
    if (shifted) options.onRestart?.();
  }
}

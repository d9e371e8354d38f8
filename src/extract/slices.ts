/**
 * A kind's window before it is walked: its first page (bounded by bytes, asked again while it
 * contradicts itself) and its time slices for a backfill. Boundaries come from probes with `limit=1`
 * at every `sliceJobs`-th offset of the newest-first list, so each slice holds about `sliceJobs`
 * jobs whatever the density of history. Slices are half-open by created_at: [after, before).
 */
import type { ListName } from '../kinds.js';
import type { Listing, Page } from './listing.js';
import { anomalyError, assertAdvances, consistentPage, isRefusal, offsetCapError } from './page-anomalies.js';
import { getBoundedPage, type Paging, type Slice, sliceParams } from './walk-slice.js';

/** Jobs per slice when --slice-jobs is unset: four pages of `pageSize` items. */
export function defaultSliceJobs(pageSize: number): number {
  return pageSize * 4;
}

/** The page at `offset` of the window, or of its part created before `before` when given. */
type Probe = (offset: number, before?: Date) => Promise<Page>;

interface PlanOptions {
  readonly sliceJobs: number;
  /** Probes sent at once. */
  readonly concurrency: number;
  readonly signal: AbortSignal;
  /** Called when the first page contradicted itself, even if asking again cleared it. */
  readonly onAnomaly?: () => void;
}

export async function planWindow(
  client: Listing,
  list: ListName,
  window: Slice,
  paging: Paging,
  options: PlanOptions,
): Promise<{ firstPage: Page; slices: Slice[] }> {
  const firstPage = await windowFirstPage(client, list, window, paging, options);
  const probe = (offset: number, before?: Date) =>
    getBoundedPage(
      client,
      list,
      { ...sliceParams({ after: window.after, before: before ?? window.before }), offset },
      { wanted: 1, signal: options.signal },
      paging,
    );
  try {
    const slices = await planSlices(window, firstPage, options.sliceJobs, probe, options.concurrency);
    return { firstPage, slices };
  } catch (error) {
    // Refused even below the last boundary: the cap is under --slice-jobs.
    throw offsetCapError(error, list, options.sliceJobs, 0);
  }
}

async function windowFirstPage(
  client: Listing,
  list: ListName,
  window: Slice,
  paging: Paging,
  { signal, onAnomaly }: PlanOptions,
): Promise<Page> {
  const { sizer } = paging;
  const ask = async () => {
    const params = { ...sliceParams(window), offset: 0 };
    const page = await getBoundedPage(client, list, params, { wanted: sizer.limit, signal }, paging);
    sizer.observe(page.ids.length, page.bytes);
    return page;
  };
  const recheck = { anomalyPauseMs: paging.anomalyPauseMs, signal, onAnomaly };
  const consistent = async (): Promise<Page> => {
    const { page, anomaly } = await consistentPage(await ask(), ask, 0, recheck);
    if (anomaly !== undefined) throw anomalyError(list, 0, anomaly);
    assertAdvances(page);
    return page;
  };
  const first = await consistent();
  // Asked before any record was seen, the first page is small: when more fit and the window goes
  // on, it is asked again at the size learned, so a window of small jobs needs no probes.
  return first.next === null || sizer.limit <= first.limit ? first : consistent();
}

/**
 * Returns slices oldest first; a `firstPage` (offset 0) with no next page is the one slice. Probes
 * go out `parallel` at a time. A service that caps offsets refuses the deep probes (400/422):
 * planning then goes on from the last boundary found (planBelowCap), so no request goes deeper
 * than `sliceJobs` (plus a page, in the walk).
 */
async function planSlices(
  window: Slice,
  firstPage: Page,
  sliceJobs: number,
  probe: Probe,
  parallel: number,
): Promise<Slice[]> {
  if (firstPage.next === null) return [window];
  const boundaries: Date[] = [];
  /** Takes the probe's first item as the next boundary; false when the list ends there. */
  const take = (page: Page): boolean => {
    if (page.ids.length === 0) return false;
    // A probe landing on a record without a readable created_at just merges two slices.
    const createdAt = page.firstCreatedAt;
    if (createdAt && createdAt < (boundaries.at(-1) ?? window.before)) boundaries.push(createdAt);
    return page.next !== null;
  };
  try {
    for (let offset = sliceJobs, more = true; more; offset += sliceJobs * parallel) {
      const offsets = Array.from({ length: Math.max(1, parallel) }, (_, i) => offset + i * sliceJobs);
      for (const page of await Promise.all(offsets.map((at) => probe(at)))) {
        more = take(page);
        if (!more) break;
      }
    }
  } catch (error) {
    if (!isRefusal(error)) throw error;
    await planBelowCap(window, boundaries, sliceJobs, probe);
  }
  const slices: Slice[] = [];
  let before = window.before;
  for (const boundary of boundaries) {
    if (window.after && boundary <= window.after) break;
    slices.push({ after: boundary, before });
    before = boundary;
  }
  slices.push({ after: window.after, before });
  return slices.reverse();
}

/** Relative probes after an offset cap: each at `sliceJobs` below the last boundary. */
async function planBelowCap(
  window: Slice,
  boundaries: Date[],
  sliceJobs: number,
  probe: Probe,
): Promise<void> {
  for (;;) {
    const before = boundaries.at(-1) ?? window.before;
    const page = await probe(sliceJobs, before);
    const createdAt = page.firstCreatedAt;
    // Jobs sharing the boundary's instant (or an unreadable one): the rest stays one slice.
    if (!createdAt || createdAt >= before || (window.after && createdAt <= window.after)) return;
    boundaries.push(createdAt);
    if (page.next === null) return;
  }
}

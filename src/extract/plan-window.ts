/**
 * A kind's window before it is walked: its first page (bounded by bytes, asked again while it
 * contradicts itself) and its slices (slices.ts), probed with one-item pages. A service that refuses
 * even the probes below the last boundary caps offsets under `--slice-jobs`: that is named.
 */
import type { ListName } from '../kinds.js';
import type { Listing, Page } from './listing.js';
import { anomalyError, assertAdvances, consistentPage, isRefusal, offsetCapError } from './page-anomalies.js';
import type { PageSizer } from './page-sizer.js';
import { planSlices, type Slice } from './slices.js';
import { getBoundedPage, type PageBudget, sliceParams } from './walk-slice.js';

/** What a kind's requests share: the page sizer (learns record sizes) and the byte budget. */
export interface Paging {
  readonly sizer: PageSizer;
  readonly budget: PageBudget;
  /** ms before a contradicting page is asked again (page-anomalies.ts, SyncPlan.anomalyPauseMs). */
  readonly anomalyPauseMs: number;
}

export interface PlanOptions {
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
      paging.sizer,
      paging.budget,
    );
  try {
    const slices = await planSlices(window, firstPage, options.sliceJobs, probe, options.concurrency);
    return { firstPage, slices };
  } catch (error) {
    // Refused even below the last boundary: the cap is under --slice-jobs.
    throw isRefusal(error) ? offsetCapError(error, list, options.sliceJobs, 0) : error;
  }
}

async function windowFirstPage(
  client: Listing,
  list: ListName,
  window: Slice,
  { sizer, budget, anomalyPauseMs }: Paging,
  { signal, onAnomaly }: PlanOptions,
): Promise<Page> {
  const ask = async () => {
    const page = await getBoundedPage(
      client,
      list,
      { ...sliceParams(window), offset: 0 },
      { wanted: sizer.limit, signal },
      sizer,
      budget,
    );
    sizer.observe(page.ids.length, page.bytes);
    return page;
  };
  const recheck = { pauseMs: anomalyPauseMs, signal, ...(onAnomaly ? { onAnomaly } : {}) };
  const first = await consistentPage(await ask(), ask, 0, recheck);
  if (first.anomaly !== undefined) throw anomalyError(list, 0, first.anomaly);
  assertAdvances(first.page);
  // Asked before any record was seen, the first page is small (at the default budget, one item of
  // ASSUMED_RECORD_BYTES: page-sizer.ts). When its records showed that
  // more fit and the window goes on, it is asked again at the size learned: a window of up to
  // --page-size small jobs is then one page, with no probes to plan slices.
  if (first.page.next === null || sizer.limit <= first.page.limit) return first.page;
  const again = await consistentPage(await ask(), ask, 0, recheck);
  if (again.anomaly !== undefined) throw anomalyError(list, 0, again.anomaly);
  assertAdvances(again.page);
  return again.page;
}

/**
 * Splitting a window into time slices for a backfill. Boundaries come from probes with `limit=1`
 * at every `sliceJobs`-th offset of the newest-first list, so each slice holds about `sliceJobs`
 * jobs whatever the density of history. Slices are half-open by created_at: [after, before).
 */
import type { Page } from '../api/index.js';

export interface Slice {
  /** Inclusive lower bound; null: no lower bound. */
  readonly after: Date | null;
  /** Exclusive upper bound. */
  readonly before: Date;
}

export type Probe = (offset: number) => Promise<Page>;

/**
 * Returns slices oldest first. `firstPage` is the window's first page (offset 0), already fetched:
 * when it says there is no next page the window is one slice and no probe is made. Probes go out
 * `parallel` at a time (the run's concurrency): when latency dominates, planning would otherwise
 * cost one round trip per slice before any slice is walked. At most `parallel - 1` probes past the
 * end of the list are wasted.
 */
export async function planSlices(
  window: Slice,
  firstPage: Page,
  sliceJobs: number,
  probe: Probe,
  parallel = 1,
): Promise<Slice[]> {
  if (firstPage.next === null) return [window];
  const boundaries: Date[] = [];
  for (let offset = sliceJobs, ended = false; !ended; offset += sliceJobs * parallel) {
    const offsets = Array.from({ length: Math.max(1, parallel) }, (_, i) => offset + i * sliceJobs);
    for (const page of await Promise.all(offsets.map((at) => probe(at)))) {
      if (page.items.length === 0) {
        ended = true;
        break;
      }
      // A probe landing on a record without a readable created_at just merges two slices.
      const createdAt = createdAtOf(page.items[0]);
      if (createdAt && createdAt < (boundaries.at(-1) ?? window.before)) boundaries.push(createdAt);
      if (page.next === null) {
        ended = true;
        break;
      }
    }
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

export function createdAtOf(item: unknown): Date | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const value = (item as { created_at?: unknown }).created_at;
  if (typeof value !== 'string') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export function idOf(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const value = (item as { id?: unknown }).id;
  return typeof value === 'string' ? value : undefined;
}

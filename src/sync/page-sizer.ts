/**
 * How many items to ask for per page. `--page-size` is the most; when a kind's records are big
 * (long transcripts with every word, translations, diarization), fewer are asked so a page's JSON
 * stays near `targetBytes`. A page is held several times over while it is parsed, validated and
 * mapped (text, objects, rows), once per fetcher and per queued page, so a page of 100 hour-long
 * transcripts (~1 MB of JSON each) would cost the sync gigabytes.
 *
 * Smaller is not better: a target of 2 MiB took a backfill's peak RSS from 1.10 to 1.03 GB but
 * cost 25% more wall time (more pages, more loads), so the target equals what the writer loads in
 * one go anyway (page-batch.ts MERGE_BYTES). BENCHMARKS.md, "Memory", has the figures.
 */

import { MERGE_BYTES } from './page-batch.js';

/**
 * JSON bytes a page aims at without a memory budget (8 MiB). The sync passes the budget's page
 * bytes instead (memory-budget.ts: 3.8 MiB at the default 512 MB).
 */
export const PAGE_TARGET_BYTES = MERGE_BYTES;

export class PageSizer {
  /** Mean JSON bytes per item of the pages seen so far (exponentially weighted); 0 before any. */
  private bytesPerItem = 0;

  constructor(
    readonly maxItems: number,
    readonly targetBytes = PAGE_TARGET_BYTES,
  ) {}

  /** Items to ask for next: maxItems until a page was seen, then what fits targetBytes (>= 1). */
  get limit(): number {
    if (this.bytesPerItem === 0) return this.maxItems;
    const fits = Math.floor(this.targetBytes / this.bytesPerItem);
    return Math.min(this.maxItems, Math.max(1, fits));
  }

  /** Learns from a page served: `bytes` of JSON (the whole body) for `items` records. */
  observe(items: number, bytes: number): void {
    if (items === 0) return;
    const perItem = bytes / items;
    // Half the weight on the newest page: follows a history whose jobs grow or shrink over time.
    this.bytesPerItem = this.bytesPerItem === 0 ? perItem : (this.bytesPerItem + perItem) / 2;
  }
}

/**
 * How many items to ask for per page. `--page-size` is the most; when a kind's records are big
 * (long transcripts with every word), fewer are asked so a page's JSON stays near `targetBytes`: a
 * page is held in memory once per fetcher and per queued page, as bytes and as its records' texts.
 */

/**
 * JSON bytes a page aims at, and the most it may have, unless `--page-bytes` or a memory budget says
 * otherwise; why pages are bounded by bytes: decision 0002.
 */
export const PAGE_TARGET_BYTES = 8 * 2 ** 20;

/** What a record is assumed to weigh before any was seen: a first page stays near the budget. */
const ASSUMED_RECORD_BYTES = 2 ** 20;

export class PageSizer {
  /** Mean JSON bytes per item of the pages seen so far (exponentially weighted); 0 before any. */
  private bytesPerItem = 0;

  constructor(
    readonly maxItems: number,
    readonly targetBytes = PAGE_TARGET_BYTES,
  ) {}

  /** Items to ask for next: what fits targetBytes at the size seen so far (or assumed), 1..maxItems. */
  get limit(): number {
    const perItem = this.bytesPerItem === 0 ? ASSUMED_RECORD_BYTES : this.bytesPerItem;
    const fits = Math.floor(this.targetBytes / perItem);
    return Math.min(this.maxItems, Math.max(1, fits));
  }

  /** Learns from a page served: `bytes` of JSON (the whole body) for `items` records. */
  observe(items: number, bytes: number): void {
    if (items === 0) return;
    const perItem = bytes / items;
    // Half the weight on the newest page: follows a history whose jobs grow or shrink over time.
    this.bytesPerItem = this.bytesPerItem === 0 ? perItem : (this.bytesPerItem + perItem) / 2;
  }

  /**
   * Learns from an answer abandoned past the budget: `asked` items weigh more than `bytes` in all.
   * Returns the limit to ask next: what the new estimate fits, and at most half of `asked`
   * (strictly smaller, so asking again ends at 1).
   */
  tooLarge(asked: number, bytes: number): number {
    this.bytesPerItem = Math.max(this.bytesPerItem, bytes / Math.max(1, asked));
    return Math.max(1, Math.min(this.limit, Math.floor(asked / 2)));
  }
}

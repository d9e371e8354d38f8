/** Running totals of one kind's run, turned into its summary at the end. */
import type { LoadResult } from '../load/loader.js';

export class RunCounters {
  pages = 0;
  jobsFetched = 0;
  inserted = 0;
  updated = 0;
  unchanged = 0;
  quarantined = 0;
  restored = 0;
  deleted = 0;
  expired = 0;
  words = 0;
  pendingRechecked = 0;
  restarts = 0;
  /** Pages that contradicted themselves, cleared by asking again or not: a --full run then marks no deletions. */
  anomalies = 0;

  addPages(pages: number, records: number): void {
    this.pages += pages;
    this.jobsFetched += records;
  }

  addLoad(result: LoadResult): void {
    this.inserted += result.inserted;
    this.updated += result.updated;
    this.unchanged += result.unchanged;
    this.quarantined += result.quarantined;
    this.restored += result.restored;
    this.words += result.words;
  }
}

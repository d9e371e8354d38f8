/**
 * Child task, floor B (transfer): the ListingClient walks both lists page by page, fetching and
 * parsing every page (JSON.parse and the envelope check), and stores nothing. No sync can be faster
 * than getting its records off the wire. Pages are sized as the sync sizes them (PageSizer), so
 * both ask for the same pages.
 */
import { ListingClient } from '../src/extract/index.js';
import { PageSizer } from '../src/extract/walk/page-sizer.js';
import { DEFAULT_MEMORY, planMemory } from '../src/memory/budget.js';

export interface FloorBOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly pageSize: number;
  readonly rateLimit: number;
}

export interface FloorBResult {
  readonly wallMs: number;
  readonly pages: number;
  readonly items: number;
  readonly bytes: number;
}

export async function runFloorB(options: FloorBOptions): Promise<FloorBResult> {
  const client = new ListingClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    rateLimit: options.rateLimit,
  });
  let pages = 0;
  let items = 0;
  const started = performance.now();
  try {
    for (const list of ['pre-recorded', 'live'] as const) {
      // The backfill's pages: the default budget's page bytes with the bench's 2 fetchers.
      const sizer = new PageSizer(options.pageSize, planMemory(DEFAULT_MEMORY, 2).pageBytes);
      for (let offset = 0; ; ) {
        const page = await client.getPage(list, { offset, limit: sizer.limit });
        sizer.observe(page.items.length, page.bytes);
        pages += 1;
        items += page.items.length;
        if (page.next === null || page.items.length === 0) break;
        offset = page.next.offset;
      }
    }
    return { wallMs: performance.now() - started, pages, items, bytes: client.stats.bytes };
  } finally {
    await client.close();
  }
}

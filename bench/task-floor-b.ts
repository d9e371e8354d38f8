/**
 * Child task, floor B (transfer): the ListingClient walks both lists page by page, fetching and
 * parsing every page (JSON.parse and the envelope check), and stores nothing. No sync can be faster
 * than getting its records off the wire.
 */
import { ListingClient } from '../src/api/index.js';

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
      for await (const page of client.walk(list, { limit: options.pageSize })) {
        pages += 1;
        items += page.items.length;
      }
    }
    return { wallMs: performance.now() - started, pages, items, bytes: client.stats.bytes };
  } finally {
    await client.close();
  }
}

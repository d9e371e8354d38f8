/**
 * Child task, floor B (transfer): both lists walked page by page, each page fetched and parsed
 * whole by JSON.parse, nothing stored. No sync can be faster than getting its records off the wire
 * and reading them. The floor stays apart from the sync's client (its scan, checks and retries):
 * one undici connection, the HTTP client the sync uses, and JSON.parse. Pages are sized as the sync
 * sizes them (PageSizer at the default budget's page bytes), so both ask for the same pages.
 */
import { Pool } from 'undici';
import { PageSizer } from '../src/extract/page-sizer.js';
import { DEFAULT_MEMORY, planMemory } from '../src/memory/budget.js';

export interface FloorBOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly pageSize: number;
}

export interface FloorBResult {
  readonly wallMs: number;
  readonly pages: number;
  readonly items: number;
  readonly bytes: number;
}

interface Envelope {
  readonly items: readonly unknown[];
  readonly next: string | null;
}

export async function runFloorB(options: FloorBOptions): Promise<FloorBResult> {
  const base = new URL(options.baseUrl);
  const pool = new Pool(base.origin, { connections: 1 });
  const headers = { 'x-service-key': options.apiKey, accept: 'application/json' };
  let pages = 0;
  let items = 0;
  let bytes = 0;
  const started = performance.now();
  try {
    for (const list of ['pre-recorded', 'live'] as const) {
      const path = `${base.pathname.replace(/\/+$/, '')}/v2/${list}`;
      // The backfill's pages: the default budget's page bytes with the bench's 2 fetchers.
      const sizer = new PageSizer(options.pageSize, planMemory(DEFAULT_MEMORY, 2).pageBytes);
      for (let offset = 0; ; ) {
        const response = await pool.request({
          method: 'GET',
          path: `${path}?offset=${offset}&limit=${sizer.limit}`,
          headers,
        });
        const body = Buffer.from(await response.body.arrayBuffer());
        if (response.statusCode !== 200)
          throw new Error(
            `floor B: ${path} answered ${response.statusCode}: ${body.toString().slice(0, 200)}`,
          );
        const page = JSON.parse(body.toString('utf8')) as Envelope;
        sizer.observe(page.items.length, body.length);
        pages += 1;
        items += page.items.length;
        bytes += body.length;
        if (page.next === null || page.items.length === 0) break;
        offset = Number(new URL(page.next, base).searchParams.get('offset'));
      }
    }
    return { wallMs: performance.now() - started, pages, items, bytes };
  } finally {
    await pool.close();
  }
}

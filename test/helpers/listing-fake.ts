/**
 * An in-memory Listing for unit tests of the engine: no sockets, the service's paging rules.
 * Lists are newest first (created_at, then id, both descending), `after_date` and `before_date`
 * are exclusive bounds, `limit` defaults to 20 and is capped (100, as the simulator), and `next`
 * carries offset + limit while the list goes on. A body past `maxBytes` fails as the HTTP client's
 * does (ResponseTooLargeError). End-to-end tests keep the simulator over real HTTP. `syncFake` runs
 * the engine over one, as a sync of the CLI would, without its read socket and publish.
 */

import { syncDefaults } from '../../src/config/sync-defaults.js';
import { ResponseTooLargeError } from '../../src/errors.js';
import type { ListName, ListParams, RequestOptions } from '../../src/extract/index.js';
import { type Listing, type Page, readPage } from '../../src/extract/listing.js';
import { RecordScanner } from '../../src/normalize/index.js';
import { runSync } from '../../src/sync/run.js';
import type { RunHooks, SyncPlan, SyncResources, SyncSummary } from '../../src/sync/types.js';

type Json = Record<string, unknown>;

export interface FakeListingOptions {
  /** Most items served per page, whatever is asked; default 100. */
  readonly limitCap?: number;
  /**
   * Called before each page is served; a thrown error is the request's failure (as the client
   * throws it once its retries are spent).
   */
  readonly beforePage?: (list: ListName, params: ListParams, request: number) => void;
}

export class FakeListing implements Listing {
  readonly stats = { requests: 0, retries: 0, pauses: 0 };
  /** Pages asked for, in order. */
  readonly asked: { list: ListName; params: ListParams }[] = [];
  closed = false;
  #records: () => readonly Json[] = () => [];
  readonly #limitCap: number;
  readonly #beforePage: FakeListingOptions['beforePage'];

  /**
   * `records` as a list, or a function read at each page: the records of a live account (such as
   * ./account-data.ts's `all`), which a test changes between runs.
   */
  constructor(records: readonly Json[] | (() => readonly Json[]), options: FakeListingOptions = {}) {
    this.records = records;
    this.#limitCap = options.limitCap ?? 100;
    this.#beforePage = options.beforePage;
  }

  /** The records as the service holds them now. */
  get records(): readonly Json[] {
    return this.#records();
  }

  /** Replaces the service's records (a job added, edited or deleted upstream). */
  set records(records: readonly Json[] | (() => readonly Json[])) {
    if (typeof records === 'function') this.#records = records;
    else {
      const fixed = [...records];
      this.#records = () => fixed;
    }
  }

  async getPage(list: ListName, params: ListParams, options: RequestOptions): Promise<Page> {
    options.signal?.throwIfAborted();
    this.stats.requests += 1;
    this.asked.push({ list, params });
    this.#beforePage?.(list, params, this.stats.requests);
    const offset = params.offset ?? 0;
    const limit = Math.min(params.limit ?? 20, this.#limitCap);
    const matching = this.#records()
      .filter((r) => listed(r, list, params))
      .sort(newestFirst);
    const items = matching.slice(offset, offset + limit);
    const last = offset + items.length >= matching.length;
    // The body as the service would send it (the link's path is never read: src/extract/listing.ts).
    const next = last ? null : `/v2/transcription?offset=${offset + limit}&limit=${limit}`;
    const text = JSON.stringify({ first: null, current: null, next, items });
    const bytes = Buffer.byteLength(text);
    if (options.maxBytes !== undefined && bytes > options.maxBytes) {
      throw new ResponseTooLargeError(`the ${list} page grew past ${options.maxBytes} bytes`, {
        bytes,
        maxBytes: options.maxBytes,
      });
    }
    const page = readPage({ list, offset, limit }, Buffer.from(text), RecordScanner);
    if ('problem' in page) throw new Error(`the fake served a body it cannot read: ${page.problem}`);
    return page;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

function listed(record: Json, list: ListName, params: ListParams): boolean {
  if (list !== 'transcription' && record['kind'] !== list) return false;
  if (params.kind && !params.kind.includes(record['kind'] as never)) return false;
  if (params.status && !params.status.includes(record['status'] as never)) return false;
  const created = Date.parse(String(record['created_at']));
  if (params.beforeDate !== undefined && !(created < new Date(params.beforeDate).getTime())) return false;
  if (params.afterDate !== undefined && !(created > new Date(params.afterDate).getTime())) return false;
  return true;
}

function newestFirst(a: Json, b: Json): number {
  const byTime = Date.parse(String(b['created_at'])) - Date.parse(String(a['created_at']));
  if (byTime !== 0) return byTime;
  const ia = String(a['id']);
  const ib = String(b['id']);
  return ia === ib ? 0 : ia < ib ? 1 : -1;
}

/**
 * One run of the engine over `source` into the file at `db`, with the test-friendly defaults of
 * ./sync.ts's syncOnce (small pages, a short pause before a contradicting page is asked again),
 * checkpoints in the file.
 */
export function syncFake(
  source: FakeListing,
  db: string,
  overrides: Partial<SyncPlan> = {},
): Promise<SyncSummary> {
  const plan: SyncPlan = { ...syncDefaults(), pageSize: 20, anomalyPauseMs: 5, ...overrides };
  return runSync(plan, fakeResources(db, source));
}

/** What a run over `source` into `db` is given: checkpoints in the file, no Redis, and `extra`'s hooks. */
export function fakeResources(db: string, source: FakeListing, extra: RunHooks = {}): SyncResources {
  return {
    db,
    lockWait: 5_000,
    checkpoints: 'duckdb',
    redisUrl: null,
    redisPrefix: 'tsync-test',
    source,
    ...extra,
  };
}

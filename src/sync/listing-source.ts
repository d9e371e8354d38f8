/**
 * What the engine uses of the listing service: one page of a list (filters, offset and limit, read
 * up to a byte bound) with its records already normalized, the request counts that go into each
 * kind's summary, and close. The service over HTTP is ./listing-service.ts (the src/api client, big
 * pages decoded in a thread); unit tests of the engine use an in-memory one
 * (test/helpers/listing-fake.ts) so they run without sockets.
 */
import type { ClientStats, ListName, ListParams, NextLink, RequestOptions } from '../api/index.js';
import type { PageRows } from './page-rows.js';

/** A page as the engine walks it: where it is, where the list goes on, and its records as rows. */
export interface SourcePage extends PageRows {
  readonly list: ListName;
  /** The offset asked for. */
  readonly offset: number;
  /** The limit asked for. */
  readonly limit: number;
  /** Only what `next` says about position (src/api/next-link.ts). */
  readonly next: NextLink | null;
  /** Body size in bytes. */
  readonly bytes: number;
}

export interface SourceRequest extends RequestOptions {
  /**
   * Items at the head of the page that are not normalized: the walk's anchor, already loaded from
   * the page before (walk-slice.ts). Default 0. They still count in `ids`.
   */
  readonly skip?: number;
}

export interface ListingSource {
  /** One page; a body past `options.maxBytes` fails with ResponseTooLargeError (bounded-page.ts). */
  getPage(list: ListName, params: ListParams, options: SourceRequest): Promise<SourcePage>;
  /** Running totals since the source was made; a kind's summary reports the difference. */
  readonly stats: Readonly<Pick<ClientStats, 'requests' | 'retries'>>;
  close(): Promise<void>;
}

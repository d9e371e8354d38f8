/**
 * What the engine uses of the listing service: one page of a list (filters, offset and limit, read
 * up to a byte bound), the request counts that go into each kind's summary, and close. The HTTP
 * client (src/api ListingClient) is one; unit tests of the engine use an in-memory one
 * (test/helpers/listing-fake.ts) so they run without sockets.
 */
import type { ClientStats, ListName, ListParams, Page, RequestOptions } from '../api/index.js';

export interface ListingSource {
  /** One page; a body past `options.maxBytes` fails with ResponseTooLargeError (bounded-page.ts). */
  getPage(list: ListName, params: ListParams, options: RequestOptions): Promise<Page>;
  /** Running totals since the source was made; a kind's summary reports the difference. */
  readonly stats: Readonly<Pick<ClientStats, 'requests' | 'retries'>>;
  close(): Promise<void>;
}

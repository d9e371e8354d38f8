/**
 * The listing service as the sync reads it: one page of a list (filters, offset and limit, read up
 * to a byte bound) as received and scanned, the request counts that go into each kind's summary,
 * and close. ListingClient (./client.ts) is the service over HTTP; unit tests of the engine use an
 * in-memory one (test/helpers/listing-fake.ts) so they run without sockets.
 */
import type { ListName } from '../kinds.js';
import type { ClientStats, ListParams, Page, RequestOptions } from './types.js';

export type { Page };

export interface Listing {
  /** One page; a body past `options.maxBytes` fails with ResponseTooLargeError. */
  getPage(list: ListName, params: ListParams, options?: RequestOptions): Promise<Page>;
  /** Running totals since the listing was made; a kind's summary reports the difference. */
  readonly stats: Readonly<Pick<ClientStats, 'requests' | 'retries' | 'pauses'>>;
  close(): Promise<void>;
}

/** A page from what was read of it: its ids and first instant taken from the items' heads. */
export function pageOf(read: Omit<Page, 'ids' | 'firstCreatedAt'>): Page {
  const created = read.items[0]?.heads.created_at;
  const instant = created === undefined ? Number.NaN : Date.parse(created);
  return Object.freeze({
    ...read,
    ids: read.items.map((item) => item.heads.id),
    firstCreatedAt: Number.isNaN(instant) ? undefined : new Date(instant),
  });
}

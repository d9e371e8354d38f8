/**
 * What the engine uses of the listing service: one page of a list (filters, offset and limit, read
 * up to a byte bound) as received and scanned, the request counts that go into each kind's summary,
 * and close. The service over HTTP is ./listing-service.ts; unit tests of the engine use an
 * in-memory one (test/helpers/listing-fake.ts) so they run without sockets.
 */
import type { ClientStats, ListName, ListParams, Page, RequestOptions } from '../api/index.js';

/** A page as the engine walks it: the client's page, with what the walk reads of its items. */
export interface SourcePage extends Page {
  /** Each item's `id` when it is a string, in order, unreadable ones included: the page's count. */
  readonly ids: readonly (string | undefined)[];
  /** The first item's created_at, when readable. */
  readonly firstCreatedAt: Date | undefined;
}

export interface ListingSource {
  /** One page; a body past `options.maxBytes` fails with ResponseTooLargeError (bounded-page.ts). */
  getPage(list: ListName, params: ListParams, options: RequestOptions): Promise<SourcePage>;
  /** Running totals since the source was made; a kind's summary reports the difference. */
  readonly stats: Readonly<Pick<ClientStats, 'requests' | 'retries'>>;
  close(): Promise<void>;
}

/** The walk's view of a client page. */
export function sourcePage(page: Page): SourcePage {
  const created = page.items[0]?.heads.created_at;
  const instant = created === undefined ? Number.NaN : Date.parse(created);
  return Object.freeze({
    ...page,
    ids: page.items.map((item) => item.heads.id),
    firstCreatedAt: Number.isNaN(instant) ? undefined : new Date(instant),
  });
}

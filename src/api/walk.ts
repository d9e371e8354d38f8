/**
 * Walks a list page by page without trusting `next`.
 *
 * Every request is built by the client on the configured base with the caller's own path and
 * filters; from `next` only the offset (and the limit, when present) is taken. So a `next` on
 * another origin or on /v2/transcription never leads anywhere else, and when the service serves
 * fewer items than asked (a server-side limit cap) the walk continues where `next` says, not at
 * offset + asked limit, and skips nothing.
 */
import { ProtocolError } from '../errors.js';
import type { Logger } from '../log.js';
import type { ListParams, Page } from './types.js';

export async function* walkPages(
  getPage: (params: ListParams) => Promise<Page>,
  params: ListParams,
  logger: Logger,
): AsyncGenerator<Page> {
  let offset = params.offset ?? 0;
  let limit = params.limit;
  for (;;) {
    const page = await getPage({ ...params, offset, limit });
    yield page;
    const next = page.next;
    if (next === null) return;
    // A next link that does not move forward would loop for ever; no retry can fix it.
    if (next.offset <= offset) {
      throw new ProtocolError(
        `the service's next link does not advance (offset ${offset} pointed to offset ${next.offset})`,
        false,
        { hint: 'the service broke its paging contract; report it upstream' },
      );
    }
    if (page.items.length === 0) {
      // An empty page that still links onward would let a broken service walk us through
      // arbitrarily many empty requests; offset paging has nothing after an empty page.
      logger.warn(
        { list: page.list, offset, nextOffset: next.offset },
        'empty page with a next link; walk ends',
      );
      return;
    }
    offset = next.offset;
    limit = next.limit ?? limit;
  }
}

/**
 * The writer loads the page in hand together with the pages already waiting behind it in the
 * queue, up to MERGE_BYTES of JSON: each load costs a fixed number of statements (stage, classify,
 * insert), which small pages would pay one by one. Big pages are loaded alone, so memory stays
 * bounded by the queue either way.
 */
import { mergePageRecords, type PageRecords } from '../normalize/page-records.js';
import type { PageMessage, QueueMessage } from './page.js';
import type { PageQueue } from './page-queue.js';

/** Most JSON bytes loaded in one go; a page bigger than this is loaded alone. */
export const MERGE_BYTES = 8 * 2 ** 20;

export interface PageBatch {
  readonly pages: readonly PageMessage[];
  /** The pages' records merged, each job once (the later page's copy). */
  readonly records: PageRecords;
}

export function withWaitingPages(
  queue: PageQueue<QueueMessage>,
  first: PageMessage,
  maxBytes = MERGE_BYTES,
): PageBatch {
  const pages = [first];
  let bytes = first.records.bytes;
  for (;;) {
    const next = queue.takeIf(
      (message) => message.type === 'page' && bytes + message.records.bytes <= maxBytes,
    );
    if (next?.type !== 'page') break;
    pages.push(next);
    bytes += next.records.bytes;
  }
  return { pages, records: mergePageRecords(pages.map((page) => page.records)) };
}

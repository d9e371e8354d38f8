/**
 * The writer loads the page in hand together with the pages already waiting behind it in the
 * queue, up to MERGE_BYTES of JSON: each load costs a fixed number of statements (the existence
 * check, one append per table, the staged words' insert), which small pages would pay one by one.
 * Big pages are loaded alone, so memory stays bounded by the queue either way.
 */
import { mergePrepared, type PreparedBatch } from '../store/prepare.js';
import type { QueueMessage } from './fetch-slices.js';
import type { PageQueue } from './page-queue.js';

/** Most JSON bytes loaded in one go; a page bigger than this is loaded alone. */
export const MERGE_BYTES = 8 * 2 ** 20;

export type PageMessage = Extract<QueueMessage, { type: 'page' }>;

export interface PageBatch {
  readonly pages: readonly PageMessage[];
  readonly items: readonly unknown[];
  /** Aligned with `items`; undefined where a page came without texts (the loader stringifies those). */
  readonly texts: readonly (string | undefined)[];
  /** The pages' prepared batches merged, when every page came prepared (and no job repeats). */
  readonly prepared: PreparedBatch | undefined;
}

export function withWaitingPages(
  queue: PageQueue<QueueMessage>,
  first: PageMessage,
  maxBytes = MERGE_BYTES,
): PageBatch {
  const pages = [first];
  let bytes = first.bytes;
  for (;;) {
    const next = queue.takeIf((message) => message.type === 'page' && bytes + message.bytes <= maxBytes);
    if (next?.type !== 'page') break;
    pages.push(next);
    bytes += next.bytes;
  }
  const batches = pages.map((page) => page.prepared).filter((p): p is PreparedBatch => p !== undefined);
  const prepared = batches.length === pages.length ? mergePrepared(batches) : undefined;
  if (pages.length === 1) {
    return { pages, items: first.items, texts: first.texts ?? first.items.map(() => undefined), prepared };
  }
  const items: unknown[] = [];
  const texts: (string | undefined)[] = [];
  for (const page of pages) {
    items.push(...page.items);
    for (let i = 0; i < page.items.length; i++) texts.push(page.texts?.[i]);
  }
  return { pages, items, texts, prepared };
}

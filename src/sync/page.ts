/**
 * What travels from the fetchers to the writer through the page queue: each page normalized into a
 * RowBatch (its texts and parsed records are let go in the fetcher), then a `done` marker per slice.
 */
import type { RowBatch } from '../normalize/row-batch.js';

export type QueueMessage =
  | {
      readonly type: 'page';
      readonly slice: number;
      /** The page's records validated, hashed and mapped to rows (src/normalize/). */
      readonly batch: RowBatch;
      /** JSON bytes of the page's answer: what the writer's merge and the memory plan count. */
      readonly bytes: number;
    }
  | { readonly type: 'done'; readonly slice: number };

export type PageMessage = Extract<QueueMessage, { type: 'page' }>;

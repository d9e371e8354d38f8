/**
 * What travels from the fetchers to the writer through the page queue: each page's records,
 * normalized (its body is let go in the fetcher), then a `done` marker per slice.
 */
import type { PageRecords } from '../normalize/page-records.js';

export type QueueMessage =
  | {
      readonly type: 'page';
      readonly slice: number;
      /** The page's records past the walk's anchor, validated (src/normalize/). */
      readonly records: PageRecords;
    }
  | { readonly type: 'done'; readonly slice: number };

export type PageMessage = Extract<QueueMessage, { type: 'page' }>;

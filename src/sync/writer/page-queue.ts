/**
 * A bounded async queue between the fetchers (several slices walked in parallel) and the single
 * writer, and what travels in it: each page's records, normalized (its body is let go in the
 * fetcher), then a `done` marker per slice. `push` waits while the queue is full, so memory holds
 * at most `capacity` pages however far the fetchers could run ahead.
 */
import { PAGE_TARGET_BYTES } from '../../extract/index.js';
import { mergePageRecords, type PageRecords } from '../../normalize/index.js';

export type QueueMessage =
  | {
      readonly type: 'page';
      readonly slice: number;
      /** The page's records past the walk's anchor, validated (src/normalize/). */
      readonly records: PageRecords;
    }
  | { readonly type: 'done'; readonly slice: number };

export type PageMessage = Extract<QueueMessage, { type: 'page' }>;

/** Most JSON bytes the writer loads in one go by default: a page at most (a bigger one is loaded alone). */
export const MERGE_BYTES = PAGE_TARGET_BYTES;

/**
 * The records of the page in hand and of the pages already waiting behind it, up to `maxBytes`
 * of JSON, each job once: each load costs a fixed number of statements, which small pages would
 * pay one by one. Big pages are loaded alone, so memory stays bounded by the queue either way.
 */
export function withWaitingPages(
  queue: PageQueue<QueueMessage>,
  first: PageMessage,
  maxBytes = MERGE_BYTES,
): PageRecords {
  const pages = [first.records];
  let bytes = first.records.bytes;
  for (;;) {
    const next = queue.takeIf(
      (message) => message.type === 'page' && bytes + message.records.bytes <= maxBytes,
    );
    if (next?.type !== 'page') break;
    pages.push(next.records);
    bytes += next.records.bytes;
  }
  return mergePageRecords(pages);
}

export class PageQueue<T> {
  private readonly items: T[] = [];
  private readonly takers: ((item: T | undefined) => void)[] = [];
  private readonly pushers: (() => void)[] = [];
  private closed = false;

  constructor(private readonly capacity: number) {}

  async push(item: T): Promise<void> {
    while (this.items.length >= this.capacity && !this.closed) {
      await new Promise<void>((resolve) => this.pushers.push(resolve));
    }
    if (this.closed) return;
    const taker = this.takers.shift();
    if (taker) taker(item);
    else this.items.push(item);
  }

  /** The next item, or undefined once the queue is closed and drained. */
  async take(): Promise<T | undefined> {
    const item = this.items.shift();
    if (item !== undefined) {
      this.pushers.shift()?.();
      return item;
    }
    if (this.closed) return undefined;
    return new Promise((resolve) => this.takers.push(resolve));
  }

  /** The next item if one is already waiting and `accept` wants it; never waits. */
  takeIf(accept: (item: T) => boolean): T | undefined {
    const item = this.items[0];
    if (item === undefined || !accept(item)) return undefined;
    this.items.shift();
    this.pushers.shift()?.();
    return item;
  }

  /** No more pushes; waiting takers get undefined once the items are drained. */
  close(): void {
    this.closed = true;
    for (const taker of this.takers.splice(0)) taker(undefined);
    for (const pusher of this.pushers.splice(0)) pusher();
  }
}

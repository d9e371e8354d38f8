/**
 * Fetchers: up to `concurrency` slices are walked at once, each pushing its pages into the shared
 * bounded queue, then its number. Slices are handed out oldest first, so the writer's watermark can
 * advance early. Each page is normalized here while the writer waits on DuckDB, and only its
 * records are queued. The queue is bounded by JSON bytes (queueBytes).
 */
import type { Listing, ListName, Page, Slice, WalkOptions } from '../../extract/index.js';
import { walkSlice } from '../../extract/index.js';
import { normalizePage, type PageRecords } from '../../normalize/index.js';

/** What travels to the writer: each page's records, then, after a slice's last page, its number. */
export type Queued = PageRecords | number;

/** How each slice is walked (WalkOptions), by up to `concurrency` fetchers at once. */
export interface FetchOptions extends Omit<WalkOptions, 'maxRestarts' | 'signal' | 'onRestart'> {
  readonly concurrency: number;
  readonly signal: AbortSignal;
  readonly onRestart: () => void;
}

/** The slices to walk, oldest first: at most `count`; `next` cuts one, undefined once none is left. */
export interface SliceSource {
  readonly count: number;
  next(): Slice | undefined;
}

/** A window's planned slices as a source. */
export function sliceList(slices: readonly Slice[]): SliceSource {
  let next = 0;
  return { count: slices.length, next: () => slices[next++] };
}

/**
 * Resolves when every slice was walked, or rejects with the first fetch error (after the others
 * stopped); closes the queue either way. Slice numbers count from 0 in the order taken.
 * `firstPage`: the first slice's first page, already fetched.
 */
export async function fetchSlices(
  client: Listing,
  list: ListName,
  slices: SliceSource,
  firstPage: Page | undefined,
  queue: PageQueue<Queued>,
  options: FetchOptions,
): Promise<void> {
  let nextSlice = 0;
  let firstError: { error: unknown } | undefined;
  // The first failure stops the other fetchers too: the run ends with what is committed.
  const stop = new AbortController();
  const signal = AbortSignal.any([options.signal, stop.signal]);
  const walkOptions: WalkOptions = { ...options, signal };
  let reuse = firstPage;
  const walk = async (index: number, slice: Slice): Promise<void> => {
    const first = reuse;
    reuse = undefined;
    for await (const page of walkSlice(client, list, slice, walkOptions, first)) {
      await queue.push(normalizePage(page));
    }
    await queue.push(index);
  };
  const fetcher = async (): Promise<void> => {
    for (;;) {
      const slice = slices.next();
      if (slice === undefined) return;
      const index = nextSlice++;
      try {
        // A stop between two slices fails the fetch like one inside a slice: resolving would say
        // that every slice was walked, and the run would claim the slices left.
        signal.throwIfAborted();
        await walk(index, slice);
      } catch (error) {
        firstError ??= { error };
        stop.abort(error);
        return;
      }
    }
  };
  try {
    const workers = Array.from({ length: Math.min(options.concurrency, slices.count) }, fetcher);
    await Promise.all(workers);
    if (firstError) throw firstError.error;
  } finally {
    queue.close();
  }
}

/**
 * A bounded async queue between the fetchers and the single writer, bounded by the size of what it
 * holds (`sizeOf`, JSON bytes for pages): `push` waits while the items held and the new one would
 * pass `capacity`, except into an empty queue, so one item of any size always fits.
 */
export class PageQueue<T> {
  private readonly items: T[] = [];
  private readonly takers: ((item: T | undefined) => void)[] = [];
  private readonly pushers: (() => void)[] = [];
  private held = 0;
  private closed = false;

  constructor(
    private readonly capacity: number,
    private readonly sizeOf: (item: T) => number,
  ) {}

  async push(item: T): Promise<void> {
    const size = this.sizeOf(item);
    while (this.items.length > 0 && this.held + size > this.capacity && !this.closed) {
      await new Promise<void>((resolve) => this.pushers.push(resolve));
    }
    if (this.closed) return;
    const taker = this.takers.shift();
    if (taker) taker(item);
    else {
      this.items.push(item);
      this.held += size;
    }
  }

  /** The next item, or undefined once the queue is closed and drained. */
  async take(): Promise<T | undefined> {
    const item = this.items.shift();
    if (item !== undefined) {
      this.taken(item);
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
    this.taken(item);
    return item;
  }

  /** No more pushes; waiting takers get undefined once the items are drained. */
  close(): void {
    this.closed = true;
    for (const taker of this.takers.splice(0)) taker(undefined);
    for (const pusher of this.pushers.splice(0)) pusher();
  }

  /** Room was made: every waiting pusher checks again, in the order they came. */
  private taken(item: T): void {
    this.held -= this.sizeOf(item);
    for (const pusher of this.pushers.splice(0)) pusher();
  }
}

/**
 * A bounded async queue between the fetchers (several slices walked in parallel) and the single
 * writer. `push` waits while the queue is full, so memory holds at most `capacity` pages however far
 * the fetchers could run ahead.
 */
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

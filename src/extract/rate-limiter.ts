/**
 * A token bucket shared by every request of one client, so concurrent walks together stay under
 * the rate. Kept as the bucket's equivalent "theoretical arrival time" (GCRA): one number, no timer
 * unless a caller must wait, and callers are served in the order they asked (FIFO).
 *
 * The bucket holds `burst` tokens (default 1: requests are evenly spaced, 1/rate s apart).
 */
import { ConfigError } from '../errors.js';
import { sleep } from '../util/sleep.js';

/** Requests per second of a client given no rate (ClientOptions.rateLimit). */
export const DEFAULT_RATE_LIMIT = 20;

export class RateLimiter {
  /** ms between two requests at the steady rate. */
  readonly #interval: number;
  /** ms a request may come early: how much a full bucket lets through at once. */
  readonly #tolerance: number;
  /** When the next request would be due if the bucket were empty (performance.now() ms). */
  #due = 0;

  constructor(perSecond: number, burst = 1) {
    if (!(perSecond > 0) || !Number.isFinite(perSecond)) {
      throw new ConfigError(
        'rateLimit',
        `must be a positive number of requests per second (got ${perSecond})`,
      );
    }
    if (!Number.isInteger(burst) || burst < 1)
      throw new ConfigError('burst', `must be an integer >= 1 (got ${burst})`);
    this.#interval = 1_000 / perSecond;
    this.#tolerance = (burst - 1) * this.#interval;
  }

  /** Resolves when the caller may send; rejects with the signal's reason when aborted first. */
  async acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const now = performance.now();
    const due = Math.max(this.#due, now);
    const wait = due - this.#tolerance - now;
    // Reserve the slot now, before waiting, so later callers queue behind this one. An aborted
    // waiter leaves its slot unused: at worst one request goes out 1/rate s later than it could.
    this.#due = due + this.#interval;
    if (wait > 0) await sleep(wait, signal);
  }
}

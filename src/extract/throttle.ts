/**
 * How one client paces its requests, whichever walk sent them.
 *
 * RateLimiter: a token bucket shared by every request, kept as the bucket's "theoretical arrival
 * time" (GCRA): one number, no timer unless a caller must wait, callers served in order (FIFO).
 *
 * Throttle: a rate limit is the account's, so the answers that say so (retry-policy.ts
 * `accountSignal`) act on every request:
 * - **Pause.** A Retry-After stops every request of the client until it has run out; a later,
 *   longer one extends the pause.
 * - **Fewer in flight.** A second signal within REPEAT_SPAN_MS of the one before halves the limit
 *   (down to 1); every RESTORE_AFTER answers in a row without one raise it by one, back up to `max`.
 *   A signal answering a request sent before the client read the previous one is that same signal
 *   again, so it neither halves nor counts.
 * Waiters are served in the order they came (FIFO); an aborted one leaves its place.
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

  /** `burst`: a whole number >= 1, checked by the client with its other options. */
  constructor(perSecond: number, burst: number) {
    if (!(perSecond > 0) || !Number.isFinite(perSecond)) {
      throw new ConfigError(
        'rateLimit',
        `must be a positive number of requests per second (got ${perSecond})`,
      );
    }
    this.#interval = 1_000 / perSecond;
    this.#tolerance = (burst - 1) * this.#interval;
  }

  /** Resolves when the caller may send; rejects with the signal's reason when aborted first. */
  async acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const now = performance.now();
    const due = Math.max(this.#due, now);
    const wait = due - this.#tolerance - now;
    // Reserve the slot now, before waiting, so later callers queue behind this one.
    this.#due = due + this.#interval;
    if (wait > 0) await sleep(wait, signal);
  }
}

/** Two signals at most this far apart (ms) halve the requests in flight. */
export const REPEAT_SPAN_MS = 30_000;

/** Answers in a row without a signal that let one more request in flight (up to the maximum). */
export const RESTORE_AFTER = 20;

/** One request's place among those in flight, from `enter` to `leave`. */
export interface Ticket {
  /** The signals counted when the request went out (`sent`); a later signal makes it stale. */
  epoch: number;
  left: boolean;
}

/** What a signal did: whether it began a pause, and the limit it lowered to, if it did. */
export interface SignalEffect {
  readonly pauseBegun: boolean;
  readonly loweredTo: number | undefined;
}

export class Throttle {
  readonly #max: number;
  readonly #now: () => number;
  #limit: number;
  #inFlight = 0;
  readonly #waiting: { readonly resolve: () => void }[] = [];
  /** When the pause ends (the clock's ms); in the past when none runs. */
  #pausedUntil = Number.NEGATIVE_INFINITY;
  /** Signals counted so far: a request sent at an older count answers from before the last one. */
  #epoch = 0;
  #lastSignalAt = Number.NEGATIVE_INFINITY;
  #answersSince = 0;

  /** `max` >= 1: requests in flight at most; `now`: the clock, ms (performance.now by default). */
  constructor(max: number, now: () => number = () => performance.now()) {
    this.#max = Math.max(1, Math.floor(max));
    this.#limit = this.#max;
    this.#now = now;
  }

  get limit(): number {
    return this.#limit;
  }

  /** ms left of the running pause; 0 when none runs. */
  pauseLeftMs(): number {
    return Math.max(0, this.#pausedUntil - this.#now());
  }

  /** Waits for a place among the requests in flight; rejects with the signal's reason when aborted. */
  async enter(signal?: AbortSignal): Promise<Ticket> {
    signal?.throwIfAborted();
    if (this.#inFlight < this.#limit && this.#waiting.length === 0) {
      this.#inFlight += 1;
    } else {
      await new Promise<void>((resolve, reject) => {
        const waiter = {
          resolve: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = (): void => {
          this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.#waiting.push(waiter);
      });
    }
    return { epoch: this.#epoch, left: false };
  }

  /** Waits while a pause runs, again if another begins meanwhile. */
  async pauseOver(signal?: AbortSignal): Promise<void> {
    for (let left = this.pauseLeftMs(); left > 0; left = this.pauseLeftMs()) await sleep(left, signal);
  }

  /** The request goes out now: a signal read after this one makes its own answer stale. */
  sent(ticket: Ticket): void {
    ticket.epoch = this.#epoch;
  }

  /** An answer that is no signal came back (2xx): RESTORE_AFTER in a row raise the limit by one. */
  answered(): void {
    this.#answersSince += 1;
    if (this.#answersSince < RESTORE_AFTER || this.#limit >= this.#max) return;
    this.#answersSince = 0;
    this.#limit += 1;
    this.#wake();
  }

  /** The service throttled the request of `ticket`: pause everything for `pauseMs`, maybe halve. */
  signal(ticket: Ticket, pauseMs: number): SignalEffect {
    const now = this.#now();
    const pauseBegun = pauseMs > 0 && this.#pausedUntil <= now;
    if (pauseMs > 0) this.#pausedUntil = Math.max(this.#pausedUntil, now + pauseMs);
    if (ticket.epoch !== this.#epoch) return { pauseBegun, loweredTo: undefined };
    this.#epoch += 1;
    this.#answersSince = 0;
    const repeated = now - this.#lastSignalAt <= REPEAT_SPAN_MS;
    this.#lastSignalAt = now;
    if (!repeated || this.#limit === 1) return { pauseBegun, loweredTo: undefined };
    this.#limit = Math.max(1, Math.floor(this.#limit / 2));
    return { pauseBegun, loweredTo: this.#limit };
  }

  /** The request's place is free again (once per ticket). */
  leave(ticket: Ticket): void {
    if (ticket.left) return;
    ticket.left = true;
    this.#inFlight -= 1;
    this.#wake();
  }

  #wake(): void {
    while (this.#inFlight < this.#limit && this.#waiting.length > 0) {
      this.#inFlight += 1;
      this.#waiting.shift()?.resolve();
    }
  }
}

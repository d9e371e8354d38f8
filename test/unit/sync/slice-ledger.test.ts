/**
 * The slice ledger's invariant, without I/O: a watermark handed out for a commit is only ever the
 * start watermark or the end of an oldest-first run of slices whose pages were all committed by
 * that commit, and it never moves back. The writer is modelled by its contract: a slice's pages
 * come before its `done` (one FIFO queue per run), slices interleave in any order, and a commit may
 * fall after any message (a superset of the real policy: every `commitRows` rows and at each end).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Slice } from '../../../src/extract/walk-slice.js';
import { SliceLedger } from '../../../src/sync/writer/slice-ledger.js';

type Message =
  | { readonly type: 'page'; readonly slice: number }
  | { readonly type: 'done'; readonly slice: number };

const HOUR = 3_600_000;
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

/** `count` adjacent slices of an hour each, oldest first; the first has no lower bound when `open`. */
function window(count: number, open: boolean): Slice[] {
  return Array.from({ length: count }, (_, i) => ({
    after: i === 0 && open ? null : new Date(T0 + i * HOUR),
    before: new Date(T0 + (i + 1) * HOUR),
  }));
}

/**
 * Drives a ledger as the writer does and checks every watermark it hands out. `commitAfter[i]`:
 * commit after message i; the run ends with a commit (drained) unless `failAt` stops it first.
 */
function replay(
  slices: readonly Slice[],
  pages: readonly number[],
  order: readonly Message[],
  commitAfter: readonly boolean[],
  start: string | null,
  failAt?: number,
): void {
  // Plain checks, not expect(): the exhaustive case makes ~100,000 of them.
  const check = (ok: boolean, what: () => string) => {
    if (!ok)
      throw new Error(`${what()} (order ${JSON.stringify(order)}, commits ${commitAfter}, start ${start})`);
  };
  const ledger = new SliceLedger(slices, start);
  const committedPages = new Array<number>(slices.length).fill(0);
  const openPages = new Array<number>(slices.length).fill(0);
  const done = new Set<number>();
  let last = start;
  /** The watermark `w` claims slices [0, k] whose ends are <= w: each must hold every page. */
  const checkCovered = (w: string | null, loaded: readonly number[]) => {
    if (w === start) return;
    const at = w === null ? Number.NaN : Date.parse(w);
    const k = slices.findIndex((s) => s.before.getTime() === at);
    check(k >= 0, () => `watermark ${w} is not the end of a slice`);
    for (let j = 0; j <= k; j++)
      check(loaded[j] === pages[j], () => `watermark ${w} claims slice ${j} uncommitted`);
  };
  const bounds = (slice: Slice | undefined) =>
    slice ? { after: slice.after?.toISOString() ?? null, before: slice.before.toISOString() } : null;
  const commit = () => {
    const w = ledger.watermark;
    // Saved in the transaction that commits the open pages: they count as committed with it.
    const withOpen = committedPages.map((n, j) => n + (openPages[j] ?? 0));
    checkCovered(w, withOpen);
    check(
      last === null || (w !== null && Date.parse(w) >= Date.parse(last)),
      () => `moved back from ${last} to ${w}`,
    );
    for (let j = 0; j < slices.length; j++) committedPages[j] = withOpen[j] ?? 0;
    openPages.fill(0);
    ledger.commit(w);
    last = w;
    const expected = bounds(slices[slices.findIndex((_, j) => !done.has(j))]);
    check(JSON.stringify(ledger.inProgress) === JSON.stringify(expected), () => 'wrong slice in progress');
  };
  for (const [i, message] of order.entries()) {
    if (i === failAt) {
      // A failure rolls the open transaction back: what is saved is the last commit's watermark.
      check(ledger.committed === last, () => `a failure saves ${ledger.committed}, not ${last}`);
      checkCovered(ledger.committed, committedPages);
      return;
    }
    if (message.type === 'page') openPages[message.slice] = (openPages[message.slice] ?? 0) + 1;
    else {
      done.add(message.slice);
      ledger.complete(message.slice);
    }
    if (commitAfter[i]) commit();
  }
  commit();
  const end = slices.at(-1)!.before.toISOString();
  check(ledger.inProgress === null, () => 'a slice still in progress at the end');
  check(
    ledger.committed === (start !== null && Date.parse(start) > Date.parse(end) ? start : end),
    () => `ends at ${ledger.committed}`,
  );
}

/** One queue order: each slice's pages then its done, slices merged by `picks`. */
function merge(pages: readonly number[], picks: readonly number[]): Message[] {
  const left = pages.map((n) => n + 1);
  const sent = pages.map(() => 0);
  const order: Message[] = [];
  let p = 0;
  while (left.some((n) => n > 0)) {
    const open = left.flatMap((n, j) => (n > 0 ? [j] : []));
    const slice = open[(picks[p++] ?? 0) % open.length]!;
    left[slice]! -= 1;
    order.push(sent[slice]! < pages[slice]! ? { type: 'page', slice } : { type: 'done', slice });
    sent[slice]! += 1;
  }
  return order;
}

/** Every order of the messages that keeps each slice's own order (pages, then done). */
function* interleavings(queues: readonly Message[][]): Generator<Message[]> {
  if (queues.every((q) => q.length === 0)) {
    yield [];
    return;
  }
  for (const [j, queue] of queues.entries()) {
    if (queue.length === 0) continue;
    const rest = queues.map((q, k) => (k === j ? q.slice(1) : q));
    for (const tail of interleavings(rest)) yield [queue[0]!, ...tail];
  }
}

describe('the slice ledger', () => {
  it('never hands out a watermark ahead of committed pages, in every order and commit placement of three slices', () => {
    const slices = window(3, true);
    const pages = [1, 1, 1];
    const queues = pages.map((n, slice) => [
      ...Array.from({ length: n }, (): Message => ({ type: 'page', slice })),
      { type: 'done', slice } as Message,
    ]);
    let cases = 0;
    for (const order of interleavings(queues)) {
      for (let mask = 0; mask < 2 ** order.length; mask++) {
        const commitAfter = order.map((_, i) => (mask & (1 << i)) !== 0);
        replay(slices, pages, order, commitAfter, null);
        replay(slices, pages, order, commitAfter, null, mask % (order.length + 1));
        cases += 1;
      }
    }
    // 6!/(2!^3) = 90 orders, 2^6 commit placements each.
    expect(cases).toBe(90 * 64);
  });

  it('never hands out a watermark ahead of committed pages, nor moves it back, for any window', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 3 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.array(fc.boolean(), { maxLength: 40 }),
        // The starting watermark: none, or the end of some hour around the window (a lookback or
        // --since window starts before it, so slices may end before the watermark).
        fc.option(fc.integer({ min: -1, max: 8 }), { nil: undefined }),
        fc.option(fc.nat({ max: 40 }), { nil: undefined }),
        fc.boolean(),
        (pages, picks, commitAfter, startHour, failAt, open) => {
          const slices = window(pages.length, open);
          const order = merge(pages, picks);
          const start = startHour === undefined ? null : new Date(T0 + startHour * HOUR).toISOString();
          replay(slices, pages, order, commitAfter, start, failAt);
        },
      ),
      { numRuns: 2_000, seed: 14 },
    );
  });

  it('keeps the watermark where it started when the window ends before it', () => {
    const slices = window(2, false);
    const start = new Date(T0 + 5 * HOUR).toISOString();
    const ledger = new SliceLedger(slices, start);
    ledger.complete(0);
    ledger.complete(1);
    expect(ledger.watermark).toBe(start);
  });

  it('refuses a slice the window does not have', () => {
    const ledger = new SliceLedger(window(2, true), null);
    expect(() => ledger.complete(2)).toThrow(RangeError);
  });
});

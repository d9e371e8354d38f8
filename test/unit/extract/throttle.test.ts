import { describe, expect, it } from 'vitest';
import {
  REPEAT_SPAN_MS,
  RESTORE_AFTER,
  type SignalEffect,
  Throttle,
  type Ticket,
} from '../../../src/extract/throttle.js';

/** A throttle on a clock the test moves. */
function throttle(max: number): { t: Throttle; clock: { now: number } } {
  const clock = { now: 0 };
  return { t: new Throttle(max, () => clock.now), clock };
}

/** A request that went out: its place taken and its send noted. */
async function send(t: Throttle): Promise<Ticket> {
  const ticket = await t.enter();
  t.sent(ticket);
  return ticket;
}

/** A request that went out and was throttled: what the signal did. */
async function throttled(t: Throttle): Promise<SignalEffect> {
  const ticket = await send(t);
  const effect = t.signal(ticket, 0);
  t.leave(ticket);
  return effect;
}

/** Whether the promise has settled once pending callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('the throttle: places in flight', () => {
  it('lets `max` requests in flight and the next in, in order, as places free', async () => {
    const { t } = throttle(2);
    const a = await send(t);
    const b = await send(t);
    const third = t.enter();
    const fourth = t.enter();
    expect(await settled(third)).toBe(false);
    t.leave(a);
    expect(await settled(third)).toBe(true);
    expect(await settled(fourth)).toBe(false);
    t.leave(a); // a second leave of one ticket frees nothing more
    expect(await settled(fourth)).toBe(false);
    t.leave(b);
    expect(await settled(fourth)).toBe(true);
  });

  it('drops an aborted waiter from the queue with the caller’s reason', async () => {
    const { t } = throttle(1);
    const a = await send(t);
    const controller = new AbortController();
    const aborted = t.enter(controller.signal);
    const next = t.enter();
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    t.leave(a);
    expect(await settled(next)).toBe(true);
  });
});

describe('the throttle: signals', () => {
  it('pauses every request for the wait asked, extended by a longer one, never shortened', () => {
    const { t, clock } = throttle(4);
    const ticket = { epoch: 0, left: false };
    expect(t.signal(ticket, 1_000).pauseBegun).toBe(true);
    clock.now = 400;
    expect(t.pauseLeftMs()).toBe(600);
    expect(t.signal({ epoch: 0, left: false }, 100).pauseBegun).toBe(false);
    expect(t.pauseLeftMs()).toBe(600);
    t.signal({ epoch: 0, left: false }, 2_000);
    expect(t.pauseLeftMs()).toBe(2_000);
    clock.now = 2_400;
    expect(t.pauseLeftMs()).toBe(0);
    expect(t.signal({ epoch: 0, left: false }, 0).pauseBegun).toBe(false);
  });

  it('halves the places after a second signal within the span, down to one', async () => {
    const { t, clock } = throttle(8);
    expect((await throttled(t)).loweredTo).toBeUndefined();
    clock.now += REPEAT_SPAN_MS;
    expect((await throttled(t)).loweredTo).toBe(4);
    clock.now += 1;
    expect((await throttled(t)).loweredTo).toBe(2);
    expect((await throttled(t)).loweredTo).toBe(1);
    expect((await throttled(t)).loweredTo).toBeUndefined();
    expect(t.limit).toBe(1);
  });

  it('does not halve for signals further apart than the span', async () => {
    const { t, clock } = throttle(8);
    for (let i = 0; i < 4; i++) {
      await throttled(t);
      clock.now += REPEAT_SPAN_MS + 1;
    }
    expect(t.limit).toBe(8);
  });

  it('counts the answers of requests sent together as one signal', async () => {
    const { t } = throttle(8);
    const together = [await send(t), await send(t), await send(t), await send(t)];
    for (const ticket of together) {
      t.signal(ticket, 0);
      t.leave(ticket);
    }
    expect(t.limit).toBe(8);
    // One sent after the client read those: a repeat.
    expect((await throttled(t)).loweredTo).toBe(4);
  });

  it('lets one more place in flight every RESTORE_AFTER answers in a row, up to the maximum', async () => {
    const { t } = throttle(4);
    await throttled(t);
    await throttled(t);
    await throttled(t);
    expect(t.limit).toBe(1);
    for (let i = 1; i < RESTORE_AFTER; i++) t.answered();
    expect(t.limit).toBe(1);
    t.answered();
    expect(t.limit).toBe(2);
    // A signal starts the count again.
    for (let i = 1; i < RESTORE_AFTER; i++) t.answered();
    await throttled(t);
    t.answered();
    expect(t.limit).toBe(1);
    for (let i = 0; i < 10 * RESTORE_AFTER; i++) t.answered();
    expect(t.limit).toBe(4);
  });

  it('lets a waiter in when the limit rises', async () => {
    const { t } = throttle(2);
    const a = await send(t);
    t.signal(a, 0);
    const b = await send(t);
    t.signal(b, 0);
    expect(t.limit).toBe(1);
    t.leave(a);
    t.leave(b);
    await send(t);
    const waiting = t.enter();
    expect(await settled(waiting)).toBe(false);
    for (let i = 0; i < RESTORE_AFTER; i++) t.answered();
    expect(await settled(waiting)).toBe(true);
  });
});

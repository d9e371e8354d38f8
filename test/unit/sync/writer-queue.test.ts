import { describe, expect, it } from 'vitest';
import { PageQueue } from '../../../src/sync/writer/fetch-slices.js';

/** Whether `promise` settled once the microtasks and a macrotask ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe("the writer's queue", () => {
  it('holds items up to its bytes, then makes pushers wait until the writer takes some', async () => {
    const queue = new PageQueue<string>(10, (item) => item.length);
    await queue.push('aaaa');
    await queue.push('bbbb');
    const third = queue.push('cccc');
    expect(await settled(third)).toBe(false);
    expect(await queue.take()).toBe('aaaa');
    expect(await settled(third)).toBe(true);
    expect(await queue.take()).toBe('bbbb');
    expect(queue.takeIf(() => true)).toBe('cccc');
  });

  it('takes an item bigger than its bytes when it is empty, and nothing beside it', async () => {
    const queue = new PageQueue<string>(4, (item) => item.length);
    await queue.push('a big page');
    const next = queue.push('b');
    expect(await settled(next)).toBe(false);
    expect(await queue.take()).toBe('a big page');
    expect(await settled(next)).toBe(true);
    queue.close();
    expect(await queue.take()).toBe('b');
    expect(await queue.take()).toBeUndefined();
  });

  it('counts an item of no bytes (the end of a slice) as taking no room', async () => {
    const queue = new PageQueue<string | number>(4, (item) => (typeof item === 'number' ? 0 : item.length));
    await queue.push('dddd');
    expect(await settled(queue.push(7))).toBe(true);
    expect(await settled(queue.push(8))).toBe(true);
  });
});

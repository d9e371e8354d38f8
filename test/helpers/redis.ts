import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';

/** The Redis of this test run: REDIS_URL, or the throwaway server of global-setup.ts. */
export function redisUrl(): string {
  return inject('redisUrl');
}

/** A key prefix no other test uses; tests delete what they wrote under it. */
export function uniquePrefix(name = 'test'): string {
  return `tsync-test:${name}:${randomUUID().slice(0, 8)}`;
}

import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';

/**
 * The Redis of this test run: REDIS_URL, or the throwaway server of ./redis-setup.ts. Only the
 * projects whose files use Redis start it; vitest.config.ts tells those files by `usesRedis`.
 */
export function redisUrl(): string {
  const url = inject('redisUrl');
  if (url === undefined)
    throw new Error(
      'this test file uses Redis, but its project starts none: call redisUrl() (or a helper named in usesRedis of vitest.config.ts) in the file itself',
    );
  return url;
}

/** A key prefix no other test uses; tests delete what they wrote under it. */
export function uniquePrefix(name = 'test'): string {
  return `tsync-test:${name}:${randomUUID().slice(0, 8)}`;
}

/**
 * Redis connections of the worker. BullMQ opens its own connections from `bullConnection()` (it
 * needs `maxRetriesPerRequest: null` so its blocking commands wait out a Redis restart); the worker
 * keeps one more client for its own commands (file lock, health PING), which fails fast instead.
 */
import { Redis } from 'ioredis';
import { RedisError, toError } from '../errors.js';

/** Connection options for BullMQ's Queue, Worker and QueueEvents. */
export function bullConnection(redisUrl: string): {
  readonly url: string;
  readonly maxRetriesPerRequest: null;
} {
  return { url: redisUrl, maxRetriesPerRequest: null };
}

/** The URL without its password, for messages and logs. */
export function displayRedisUrl(redisUrl: string): string {
  try {
    const url = new URL(redisUrl);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(unparsable Redis URL)';
  }
}

/**
 * A client for the worker's own commands: a command fails after 3 reconnect attempts rather than
 * queueing forever, so a health probe or a lock renewal reports a dead Redis instead of hanging.
 */
export async function connectRedis(redisUrl: string, connectionName: string): Promise<Redis> {
  const client = new Redis(redisUrl, {
    lazyConnect: true,
    connectionName,
    maxRetriesPerRequest: 3,
    connectTimeout: 5_000,
    // ms between reconnect attempts: 100, 200, ... capped at 2 s; never gives up while the worker lives.
    retryStrategy: (times) => Math.min(times * 100, 2_000),
  });
  // ioredis emits 'error' on every failed reconnect; callers see failures through their commands.
  // The first one says why (ECONNREFUSED, auth) better than the "Connection is closed" that follows.
  let firstError: Error | undefined;
  client.on('error', (error: Error) => {
    firstError ??= error;
  });
  try {
    await client.connect();
    await client.ping();
    return client;
  } catch (error) {
    client.disconnect();
    const reason = (firstError ?? toError(error)).message;
    throw new RedisError(`cannot reach Redis at ${displayRedisUrl(redisUrl)}: ${reason}`, {
      hint: 'check REDIS_URL (or --redis-url) and that Redis is running',
      cause: error,
    });
  }
}

/** Closes a client politely, or drops the socket when Redis does not answer. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  try {
    await Promise.race([client.quit(), new Promise((_, reject) => setTimeout(reject, 1_000).unref())]);
  } catch {
    client.disconnect();
  }
}

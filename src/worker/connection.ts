/**
 * Redis connections of the worker. BullMQ opens its own from `bullConnection()`, whose blocking
 * commands wait out a Redis restart; the worker's own client (health PING) fails fast instead, and
 * is watched (watchRedis). A wait for Redis that must not hold up a probe, a scrape or a shutdown
 * is bounded.
 */
import { Redis } from 'ioredis';
import { maskPassword } from '../config/resolve.js';
import { RedisError, toError } from '../errors.js';
import type { Logger } from '../log.js';
import { within } from '../util/within.js';

/** ms before reconnect attempt `times`, capped at 2 s and never giving up, however long Redis was gone. */
function reconnectDelay(times: number): number {
  return Math.min(times * 100, 2_000);
}

/**
 * For BullMQ's Queue, Worker and QueueEvents: BullMQ's default delay grows with each attempt, so
 * after a long outage the queue would stay away long after Redis is back.
 */
export function bullConnection(redisUrl: string) {
  return { url: redisUrl, maxRetriesPerRequest: null, retryStrategy: reconnectDelay } as const;
}

/** A client for the worker's own commands, failing after 3 reconnect attempts rather than hanging. */
export async function connectRedis(redisUrl: string, connectionName: string): Promise<Redis> {
  const client = new Redis(redisUrl, {
    lazyConnect: true,
    connectionName,
    maxRetriesPerRequest: 3,
    connectTimeout: 5_000,
    retryStrategy: reconnectDelay,
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
    throw new RedisError(`cannot reach Redis at ${maskPassword(redisUrl)}: ${reason}`, {
      hint: 'check REDIS_URL (or --redis-url) and that Redis is running',
      cause: error,
    });
  }
}

/** Closes a client politely, or drops the socket when Redis does not answer. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  const quit = client.quit().then(
    () => true,
    () => false,
  );
  if (!(await within(quit, 1_000, false))) client.disconnect();
}

/** Waits for `step`, a call that needs Redis, at most `ms`: during an outage it may never settle. */
export async function boundedRedisCall(step: Promise<unknown>, ms: number): Promise<void> {
  const settled = step.catch(() => undefined);
  await within(settled, ms, undefined);
}

/** ms between PINGs that notice a dead Redis even while the worker has nothing to do. */
const PROBE_EVERY_MS = 1_000;

/**
 * Logs one line per change of the client's state (`Redis connection lost`, warn; `Redis connection
 * back`, info, with how long it was gone), not one per reconnect attempt. `onBack` runs after each
 * return: Redis may have come back empty (a restart without persistence).
 */
export function watchRedis(options: {
  readonly redis: Redis;
  readonly redisUrl: string;
  readonly logger: Logger;
  readonly onBack?: () => Promise<void>;
}) {
  const { redis, logger } = options;
  const url = maskPassword(options.redisUrl);
  let up = true;
  let downSince = 0;
  const lost = (reason: string) => {
    if (!up) return;
    up = false;
    downSince = Date.now();
    logger.warn({ redis: url, reason }, 'Redis connection lost; reconnecting (runs wait until it is back)');
  };
  const onError = (error: Error) => lost(error.message);
  const onClose = () => lost('connection closed');
  const onReady = () => {
    if (up) return;
    up = true;
    logger.info({ redis: url, down_ms: Date.now() - downSince }, 'Redis connection back');
    options.onBack?.().catch((error: unknown) => {
      logger.error({ err: toError(error) }, 'could not restore the schedules after Redis came back');
    });
  };
  redis.on('error', onError).on('close', onClose).on('ready', onReady);
  // A PING keeps the client trying while nothing else uses it; its failure is already reported.
  const timer = setInterval(() => {
    if (redis.status === 'ready') redis.ping().catch(() => {});
  }, PROBE_EVERY_MS);
  timer.unref();
  return {
    /** false from the moment the connection drops until it is ready again. */
    isUp: () => up,
    stop() {
      clearInterval(timer);
      redis.off('error', onError).off('close', onClose).off('ready', onReady);
    },
  };
}

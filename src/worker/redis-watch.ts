/**
 * Watches the worker's own Redis client and logs one line per change of state: `Redis connection
 * lost` (warn) when it drops, `Redis connection back` (info, with how long it was gone) when it
 * returns, instead of one error per reconnect attempt. BullMQ's connections reconnect on their own;
 * their errors are logged at debug only. `onBack` runs after each return: Redis may have come back
 * empty (a restart without persistence), and the schedules must exist again.
 */
import type { Redis } from 'ioredis';
import { toError } from '../errors.js';
import type { Logger } from '../log.js';
import { displayRedisUrl } from './connection.js';

/** ms between PINGs that notice a dead Redis even while the worker has nothing to do. */
const PROBE_EVERY_MS = 1_000;

export interface RedisWatch {
  /** false from the moment the connection drops until it is ready again. */
  isUp(): boolean;
  stop(): void;
}

export interface RedisWatchOptions {
  readonly redis: Redis;
  readonly redisUrl: string;
  readonly logger: Logger;
  readonly onBack?: () => Promise<void>;
}

export function watchRedis(options: RedisWatchOptions): RedisWatch {
  const { redis, logger } = options;
  const url = displayRedisUrl(options.redisUrl);
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
    isUp: () => up,
    stop() {
      clearInterval(timer);
      redis.off('error', onError).off('close', onClose).off('ready', onReady);
    },
  };
}

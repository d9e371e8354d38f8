/**
 * Checkpoints in Redis, one key per kind (`<prefix>:checkpoint:<kind>`), written after the DuckDB
 * commit of the rows they cover, so Redis never claims rows the file does not hold. A save waits
 * for an unreachable Redis at most `saveWaitMs`: the rows it covers are committed already, and
 * failing the run would only fetch them again.
 */
import { Redis, ReplyError } from 'ioredis';
import { RedisError } from '../../errors.js';
import type { JobKind } from '../../kinds.js';
import { sleep } from '../../util/sleep.js';
import type { Checkpoint, CheckpointStore } from '../types.js';
import { parseCheckpoint } from './schema.js';

export function checkpointKey(prefix: string, kind: JobKind): string {
  return `${prefix}:checkpoint:${kind}`;
}

/** ms a save waits for an unreachable Redis before it fails. */
export const SAVE_WAIT_MS = 60_000;
/** ms between the attempts of a save while Redis is unreachable. */
const SAVE_RETRY_MS = 250;

export interface RedisCheckpointOptions {
  /** ms a save waits for an unreachable Redis; SAVE_WAIT_MS unless given. */
  readonly saveWaitMs?: number;
  /** Ends a save's wait for Redis, rejecting with the signal's reason. */
  readonly signal?: AbortSignal;
}

export class RedisCheckpointStore implements CheckpointStore {
  readonly name = 'redis';
  readonly phase = 'after-commit';
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly options: RedisCheckpointOptions = {},
  ) {
    // Fail fast instead of queueing commands while Redis is down: a command that cannot happen
    // surfaces as an error, and only `save` tries again, for a bounded time.
    this.redis = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: 5_000,
    });
    this.redis.on('error', () => {});
  }

  /** Runs `command` on the client, connecting it first; any failure is a RedisError. */
  private async command<T>(command: (redis: Redis) => Promise<T>): Promise<T> {
    try {
      if (this.redis.status === 'wait' || this.redis.status === 'end') await this.redis.connect();
      return await command(this.redis);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new RedisError(`Redis is unreachable or refused the checkpoint (${reason})`, {
        hint: 'check that Redis runs and REDIS_URL (--redis-url) points at it',
        cause: error,
      });
    }
  }

  async load(kind: JobKind): Promise<Checkpoint | null> {
    return parseCheckpoint(await this.command((redis) => redis.get(checkpointKey(this.prefix, kind))));
  }

  /**
   * While Redis is unreachable it tries again until `saveWaitMs` has passed (then the RedisError) or
   * the signal aborts (then its reason).
   */
  async save(kind: JobKind, checkpoint: Checkpoint): Promise<void> {
    const { signal } = this.options;
    const deadline = Date.now() + (this.options.saveWaitMs ?? SAVE_WAIT_MS);
    const write = (redis: Redis) => redis.set(checkpointKey(this.prefix, kind), JSON.stringify(checkpoint));
    for (;;) {
      try {
        await this.command(write);
        return;
      } catch (error) {
        signal?.throwIfAborted();
        // A refusal from a Redis that answers would be the same next time.
        if (error instanceof RedisError && error.cause instanceof ReplyError) throw error;
        const left = deadline - Date.now();
        if (left <= 0) throw error;
        await sleep(Math.min(left, SAVE_RETRY_MS), signal);
      }
    }
  }

  async close(): Promise<void> {
    if (this.redis.status !== 'end') this.redis.disconnect();
  }
}

/**
 * Checkpoints in Redis, one key per kind (`<prefix>:checkpoint:<kind>`), written after the DuckDB
 * commit of the rows they cover, so Redis never claims rows the file does not hold.
 */
import { Redis } from 'ioredis';
import { RedisError } from '../../errors.js';
import type { JobKind } from '../../kinds.js';
import type { Checkpoint, CheckpointStore } from '../types.js';
import { parseCheckpoint } from './schema.js';

export function checkpointKey(prefix: string, kind: JobKind): string {
  return `${prefix}:checkpoint:${kind}`;
}

export class RedisCheckpointStore implements CheckpointStore {
  readonly name = 'redis';
  readonly phase = 'after-commit';
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    // Fail fast instead of queueing commands while Redis is down: a checkpoint write that cannot
    // happen must surface as an error, not hang the run.
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
      });
    }
  }

  async load(kind: JobKind): Promise<Checkpoint | null> {
    return parseCheckpoint(await this.command((redis) => redis.get(checkpointKey(this.prefix, kind))));
  }

  /** Call after the DuckDB commit of the rows the checkpoint covers. */
  async save(kind: JobKind, checkpoint: Checkpoint): Promise<void> {
    await this.command((redis) => redis.set(checkpointKey(this.prefix, kind), JSON.stringify(checkpoint)));
  }

  async close(): Promise<void> {
    if (this.redis.status !== 'end') this.redis.disconnect();
  }
}

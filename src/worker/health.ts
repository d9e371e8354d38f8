/**
 * What /healthz answers: healthy when Redis answers PING and every selected kind has had a
 * successful run within `staleAfterMs`. A worker that has not finished a first run yet counts from
 * its own start, so a fresh worker is healthy for `staleAfterMs` (and must not be restarted by its
 * orchestrator for being slow to finish a long first backfill within that time).
 */
import type { Redis } from 'ioredis';
import { toError } from '../errors.js';
import type { SyncKind } from '../sync/types.js';
import { formatDuration } from '../util/duration.js';
import type { WorkerMetrics } from './metrics.js';

/** ms a PING may take before Redis counts as unreachable. */
const PING_TIMEOUT_MS = 2_000;

export interface HealthOptions {
  readonly redis: Redis;
  readonly kinds: readonly SyncKind[];
  /** ms */
  readonly staleAfterMs: number;
  /** ms since the epoch */
  readonly startedAt: number;
  readonly metrics: WorkerMetrics;
}

export interface KindHealth {
  /** ISO 8601, null before the first success of this process. */
  readonly lastSuccess: string | null;
  /** Seconds since the last success, or since the worker started when there is none. */
  readonly ageSeconds: number;
  readonly stale: boolean;
}

export interface HealthReport {
  readonly status: 'ok' | 'unhealthy';
  readonly redis: 'ok' | 'unreachable';
  readonly kinds: Readonly<Partial<Record<SyncKind, KindHealth>>>;
  readonly reasons: readonly string[];
}

export async function checkHealth(options: HealthOptions, now = Date.now()): Promise<HealthReport> {
  const reasons: string[] = [];
  const redis = await ping(options.redis);
  if (redis !== undefined) reasons.push(`Redis does not answer PING: ${redis}`);
  const kinds: Partial<Record<SyncKind, KindHealth>> = {};
  for (const kind of options.kinds) {
    const last = options.metrics.lastSuccess(kind);
    const age = now - (last ?? options.startedAt);
    const stale = age > options.staleAfterMs;
    kinds[kind] = {
      lastSuccess: last === undefined ? null : new Date(last).toISOString(),
      ageSeconds: Math.round(age / 1_000),
      stale,
    };
    if (stale) {
      const since = last === undefined ? 'since the worker started' : 'in';
      reasons.push(
        `no successful ${kind} sync ${since} ${formatDuration(age)} (stale after ${formatDuration(options.staleAfterMs)})`,
      );
    }
  }
  return {
    status: reasons.length === 0 ? 'ok' : 'unhealthy',
    redis: redis === undefined ? 'ok' : 'unreachable',
    kinds,
    reasons,
  };
}

/** undefined when Redis answered, else why not. */
async function ping(redis: Redis): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${PING_TIMEOUT_MS} ms`), PING_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      redis.ping().then((answer) => (answer === 'PONG' ? undefined : `answered ${answer}`)),
      timeout,
    ]);
  } catch (error) {
    return toError(error).message;
  } finally {
    clearTimeout(timer);
  }
}

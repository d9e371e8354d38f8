import type { Simulator } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/run.js';
import { SYNC_KINDS, type SyncOptions, type SyncSummary } from '../../src/sync/types.js';

/** One engine run against a simulator with test-friendly defaults (small pages, no rate limit). */
export function syncOnce(
  sim: Simulator,
  db: string,
  overrides: Partial<SyncOptions> = {},
): Promise<SyncSummary> {
  return runSync({
    baseUrl: sim.url,
    apiKey: sim.apiKey,
    db,
    kinds: SYNC_KINDS,
    full: false,
    checkpoints: 'duckdb',
    redisPrefix: 'tsync-test',
    pageSize: 20,
    rateLimit: 10_000,
    concurrency: 2,
    lookback: 15 * 60_000,
    pendingMaxAge: 7 * 86_400_000,
    lockWait: 5_000,
    metadataEncoding: 'json',
    ...overrides,
  });
}

/** Requests the simulator saw to list endpoints since `from` (an index into sim.log). */
export function listRequestsSince(sim: Simulator, from: number): number {
  return sim.log.slice(from).filter((entry) => entry.path.startsWith('/v2/')).length;
}

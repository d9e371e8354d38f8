import type { Simulator } from '../../src/simulator/index.js';
import { syncDefaults } from '../../src/sync/plan-defaults.js';
import { runSync } from '../../src/sync/run.js';
import type { SyncOptions, SyncSummary } from '../../src/sync/types.js';

/**
 * One engine run against a simulator with test-friendly defaults: small pages, no rate limit, and a
 * short pause before a contradicting page is asked again (the path is the same; 200 ms by default).
 */
export function syncOnce(
  sim: Simulator,
  db: string,
  overrides: Partial<SyncOptions> = {},
): Promise<SyncSummary> {
  const options: SyncOptions = {
    ...syncDefaults(),
    baseUrl: sim.url,
    apiKey: sim.apiKey,
    db,
    redisPrefix: 'tsync-test',
    pageSize: 20,
    rateLimit: 10_000,
    anomalyPauseMs: 5,
    ...overrides,
  };
  return runSync(options, options);
}

/** Requests the simulator saw to list endpoints since `from` (an index into sim.log). */
export function listRequestsSince(sim: Simulator, from: number): number {
  return sim.log.slice(from).filter((entry) => entry.path.startsWith('/v2/')).length;
}

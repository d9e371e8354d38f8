import { syncDefaults } from '../../src/config/sync-defaults.js';
import { type PipelineOptions, type PipelineSummary, runPipeline } from '../../src/pipeline.js';
import type { Simulator } from '../../src/simulator/index.js';

/**
 * One run against a simulator as the CLI makes it (the read socket beside it, the publish after it
 * when asked), with test-friendly defaults: small pages, no rate limit, and a short pause before a
 * contradicting page is asked again (the path is the same; 200 ms by default).
 */
export function syncOnce(
  sim: Simulator,
  db: string,
  overrides: Partial<PipelineOptions> = {},
): Promise<PipelineSummary> {
  const options: PipelineOptions = {
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
  return runPipeline(options, options);
}

/** Requests the simulator saw to list endpoints since `from` (an index into sim.log). */
export function listRequestsSince(sim: Simulator, from: number): number {
  return sim.log.slice(from).filter((entry) => entry.path.startsWith('/v2/')).length;
}

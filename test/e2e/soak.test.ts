/**
 * The long soak (`SOAK_MINUTES=30 npm run soak`): storm after storm until the time is up, each on a
 * fresh simulator and database with its own seed, alternating one-shot `sync` storms and `worker`
 * storms (test/helpers/storm/storm.ts and worker-storm.ts). After each storm the database must
 * equal the simulator; the first storm that does not fails the soak with its seed. Skipped unless
 * SOAK_MINUTES is set: `npm test` runs the short storm of chaos.test.ts instead.
 *
 *   SOAK_MINUTES=10 [CHAOS_SEED=N] [SOAK_VARIANT=both|cli|worker] [SOAK_ROUNDS=30] npm run soak
 *
 * Replay one storm with `SOAK_MINUTES=0 CHAOS_SEED=N SOAK_VARIANT=cli|worker` (one storm whatever
 * the time). The worker variant uses the tests' Redis (REDIS_URL, or a throwaway redis-server).
 */
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { redisUrl } from '../helpers/redis.js';
import { chaosSeed } from '../helpers/storm/chaos.js';
import { runSyncStorm, type SettleStep, settle } from '../helpers/storm/storm.js';
import { runWorkerStorm, settleWorker } from '../helpers/storm/worker-storm.js';
import { tempDir } from '../helpers/tmp.js';
import { deleteKeys } from '../helpers/worker.js';

type Variant = 'cli' | 'worker';

interface SoakOptions {
  readonly minutes: number;
  readonly seed: number;
  readonly variants: readonly Variant[];
  readonly rounds: number;
}

/** The soak's settings from its environment variables; undefined when SOAK_MINUTES is not set. */
function soakOptions(env: NodeJS.ProcessEnv = process.env): SoakOptions | undefined {
  if (env['SOAK_MINUTES'] === undefined) return undefined;
  const minutes = Number(env['SOAK_MINUTES']);
  const seed = chaosSeed(Math.floor(Math.random() * 1_000_000_000), env['CHAOS_SEED']);
  const rounds = Number(env['SOAK_ROUNDS'] ?? '30');
  const variant = env['SOAK_VARIANT'] ?? 'both';
  const variants: Variant[] = variant === 'both' ? ['cli', 'worker'] : [variant as Variant];
  if (!(minutes >= 0) || !(rounds >= 1) || !variants.every((v) => v === 'cli' || v === 'worker')) {
    throw new Error(
      'soak: SOAK_MINUTES takes minutes >= 0, SOAK_ROUNDS a count >= 1, SOAK_VARIANT both, cli or worker',
    );
  }
  return { minutes, seed, variants, rounds };
}

function startStormSimulator(seed: number): Promise<Simulator> {
  return startSimulator({
    seed,
    preRecorded: 300,
    live: 200,
    utterancesPerJob: 6,
    wordsPerUtterance: 6,
    from: new Date(Date.now() - 5 * 86_400_000),
    to: new Date(Date.now() - 60_000),
    latencyMs: 5,
  });
}

const log = (line: string): void => {
  process.stdout.write(`${new Date().toISOString()} ${line}\n`);
};

/** Problems of the settle steps; empty when the storm converged. */
function problems(steps: Record<string, SettleStep>): string[] {
  return Object.entries(steps).flatMap(([name, step]) => [
    ...(step.code === 0 ? [] : [`${name} run exited ${step.code}: ${step.stderr.slice(-1_500)}`]),
    ...step.differences.map((d) => `${name}: ${d}`),
  ]);
}

async function cliStorm(seed: number, rounds: number, dir: string): Promise<string[]> {
  const sim = await startStormSimulator(seed);
  try {
    const db = join(dir, `cli-${seed}.duckdb`);
    const storm = await runSyncStorm({ sim, db, seed, rounds, killAfterRequests: [0, 80], log });
    log(`changes ${JSON.stringify(storm.chaos.counts)}; ${storm.killed} killed, ${storm.finished} finished`);
    const { incremental, full } = await settle(sim, db, storm.chaos.deleted);
    return [...storm.bad, ...problems({ incremental, full })];
  } finally {
    await sim.close();
  }
}

async function workerStorm(seed: number, rounds: number, dir: string, url: string): Promise<string[]> {
  const sim = await startStormSimulator(seed);
  const prefix = `tsync-soak:${seed}`;
  try {
    const options = {
      sim,
      db: join(dir, `worker-${seed}.duckdb`),
      seed,
      rounds,
      redisUrl: url,
      prefix,
      killAfterRequests: [5, 150] as const,
      log,
    };
    const storm = await runWorkerStorm(options);
    log(`changes ${JSON.stringify(storm.chaos.counts)}; ${storm.killed} killed, ${storm.stopped} stopped`);
    const { incremental, full, stop } = await settleWorker(options, storm.chaos.deleted);
    return [...storm.bad, ...problems({ incremental, full, stop })];
  } finally {
    await sim.close();
    const redis = new Redis(url, { maxRetriesPerRequest: 2 });
    await deleteKeys(redis, prefix).finally(() => redis.disconnect());
  }
}

const options = soakOptions();
/** ms: the soak's time, and an hour for the storm that is running when it is up. */
const SOAK_TIMEOUT_MS = ((options?.minutes ?? 0) + 60) * 60_000;

describe.skipIf(options === undefined)('the soak', () => {
  it('converges after every storm until the time is up', { timeout: SOAK_TIMEOUT_MS }, async () => {
    const { minutes, seed: first, variants, rounds } = options as SoakOptions;
    const dir = tempDir('tsync-soak-');
    const until = Date.now() + minutes * 60_000;
    let storms = 0;
    for (let seed = first; storms === 0 || Date.now() < until; seed++) {
      const variant = variants[storms % variants.length] as Variant;
      log(`storm ${storms + 1}: ${variant}, seed ${seed}`);
      const found =
        variant === 'cli'
          ? await cliStorm(seed, rounds, dir)
          : await workerStorm(seed, rounds, dir, redisUrl());
      storms += 1;
      const replay = `replay: SOAK_MINUTES=0 CHAOS_SEED=${seed} SOAK_VARIANT=${variant} npm run soak`;
      expect(found, `the ${variant} storm of seed ${seed} did not converge (${replay})`).toEqual([]);
      log(`storm ${storms} converged: the database equals the service`);
    }
    log(`soak passed: ${storms} storms converged`);
  });
});

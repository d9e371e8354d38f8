/**
 * Convergence under chaos, short version (the long one is `npm run soak`): whatever the service
 * and the process go through, once the storm is over the DuckDB file equals the service exactly.
 * Replay a failure with CHAOS_SEED=<seed from the message> npx vitest run test/e2e/chaos.test.ts.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runMain } from '../helpers/cli.js';
import { readCount } from '../helpers/mirror.js';
import { chaosSeed, GLITCHES } from '../helpers/storm/chaos.js';
import { runSyncStorm, settle } from '../helpers/storm/storm.js';
import { tempDir } from '../helpers/tmp.js';

/** CHAOS_VERBOSE=1 prints each round (how it was run and how it ended). */
const verbose = process.env['CHAOS_VERBOSE'] ? (line: string) => console.log(line) : undefined;

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

function runsLeftRunning(db: string): Promise<number> {
  return readCount(db, "SELECT count(*) FROM sync_runs WHERE outcome = 'running'");
}

/** Runs killed mid-way: 'running' until the next run closes them as 'abandoned'. */
function runsKilled(db: string): Promise<number> {
  return readCount(db, "SELECT count(*) FROM sync_runs WHERE outcome IN ('running', 'abandoned')");
}

describe('convergence under chaos', () => {
  it('ends with the database equal to the service after changes, faults and SIGKILLs', async () => {
    const seed = chaosSeed(20_261_108);
    const tag = `CHAOS_SEED=${seed}`;
    sim = await startSimulator({
      seed,
      preRecorded: 40,
      live: 30,
      utterancesPerJob: 4,
      wordsPerUtterance: 5,
      // Three days of history, so queued and processing jobs are young enough to be re-checked.
      from: new Date(Date.now() - 3 * 86_400_000),
      to: new Date(Date.now() - 60_000),
      latencyMs: 10,
    });
    const db = join(tempDir('tsync-chaos-'), 'chaos.duckdb');
    // Kill points within a run's first requests: a run after a complete one makes only a few, and a
    // run that ends before its kill point is not killed.
    const storm = await runSyncStorm({ sim, db, seed, rounds: 4, killAfterRequests: [0, 6], log: verbose });
    expect(storm.bad, tag).toEqual([]);
    // The storm must have been one: kills mid-run, and every kind of change upstream.
    expect(storm.killed, tag).toBeGreaterThanOrEqual(2);
    expect(await runsKilled(db), `${tag}: no kill landed mid-run`).toBeGreaterThan(0);
    const counts = storm.chaos.counts;
    for (const [change, n] of Object.entries(counts))
      expect(n, `${tag}: no ${change} change happened`).toBeGreaterThan(0);
    expect(
      sim.log.some((e) => e.fault !== undefined),
      `${tag}: no fault was served`,
    ).toBe(true);
    for (const glitch of GLITCHES) {
      expect(
        sim.log.some((e) => e.fault === glitch),
        `${tag}: no ${glitch} was served`,
      ).toBe(true);
    }

    const { incremental, full } = await settle(sim, db, storm.chaos.deleted);
    expect(incremental.code, `${tag}\n${incremental.stderr}`).toBe(0);
    expect(incremental.differences, `${tag}: after the incremental run`).toEqual([]);
    expect(full.code, `${tag}\n${full.stderr}`).toBe(0);
    expect(full.differences, `${tag}: after the --full run`).toEqual([]);
    expect(await runsLeftRunning(db), `${tag}: runs of killed syncs left running`).toBe(0);
    // No key enforces jobs.id: the user's own check agrees after the storm.
    const verified = await runMain(['verify', '--db', db]);
    expect(verified.code, `${tag}: ${verified.stderr}`).toBe(0);
  }, 300_000);
});

/**
 * A storm of one-shot syncs: while the simulator changes and fails at random, `transcript-sync sync`
 * runs again and again as a child process and is killed with SIGKILL at seeded random points (some
 * runs are left to finish, some are --full, some one kind only). Then the quiet: changes and faults
 * stop, one incremental and one --full run finish (in this process: no signal is aimed at them),
 * and the file is compared with the simulator.
 * The chaos test and the soak (test/e2e/soak.test.ts) share it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Rng, type Simulator } from '../../../src/simulator/index.js';
import { runMain } from '../cli.js';
import {
  GLITCHES,
  type SyncChild,
  startFaults,
  startTranscriptSync,
  UpstreamChaos,
  waitOrExit,
} from './chaos.js';
import { mirrorDifferences } from './mirror-exact.js';

export interface StormOptions {
  readonly sim: Simulator;
  readonly db: string;
  readonly seed: number;
  readonly rounds: number;
  /**
   * A run is killed once the simulator has answered this many of its requests (drawn in the range;
   * 0: while it starts), plus 0-80 ms so the kill lands anywhere between fetch, load and commit.
   * Counting requests, not time, keeps kill points mid-run on fast and slow machines alike.
   */
  readonly killAfterRequests: readonly [number, number];
  /** Share of list requests that fail (default 0.15). */
  readonly faultRate?: number;
  /** ms between two upstream changes (default 40). */
  readonly changeEveryMs?: number;
  readonly log?: (line: string) => void;
}

export interface StormReport {
  readonly killed: number;
  readonly finished: number;
  /** Runs that ended on their own in a way a storm never excuses: a usage error, an unexpected crash. */
  readonly bad: string[];
  readonly chaos: UpstreamChaos;
}

/** Longest a run left to finish may take before it counts as hung, ms. */
const FINISH_LIMIT_MS = 120_000;

export function syncEnv(sim: Simulator): Record<string, string> {
  // Small pages: many pages and slices per run, so kills land between and inside transactions.
  return {
    TSYNC_BASE_URL: sim.url,
    TSYNC_API_KEY: sim.apiKey,
    TSYNC_PAGE_SIZE: '10',
    TSYNC_RATE_LIMIT: '1000',
  };
}

export async function runSyncStorm(options: StormOptions): Promise<StormReport> {
  const { sim, db, seed } = options;
  const rng = new Rng(seed ^ 0x51a7);
  const chaos = new UpstreamChaos(sim, seed);
  startFaults(sim, seed, options.faultRate);
  chaos.start(options.changeEveryMs);
  const report = { killed: 0, finished: 0, bad: [] as string[], chaos };
  try {
    for (let round = 0; round < options.rounds; round++) {
      const args = ['sync', '--db', db, '--concurrency', String(rng.int(1, 3))];
      if (rng.chance(0.2)) args.push('--full');
      if (rng.chance(0.15)) args.push('--kind', rng.pick(['pre-recorded', 'live']));
      const letFinish = rng.chance(0.25);
      const requests = rng.int(options.killAfterRequests[0], options.killAfterRequests[1]);
      const extraMs = rng.int(0, 80);
      // Each round opens on a contradicting page, in turn, besides those the random faults draw.
      sim.faults.inject(GLITCHES[round % GLITCHES.length]!);
      const run = startTranscriptSync(args, syncEnv(sim));
      const ended = letFinish
        ? await waitOrExit(run, FINISH_LIMIT_MS)
        : await killPoint(sim, run, requests, extraMs);
      if (!ended) run.child.kill('SIGKILL');
      const result = await run.done;
      if (!ended) report.killed += 1;
      else report.finished += 1;
      const what = `round ${round} (${args.slice(3).join(' ')}, ${ended ? `ran to the end${letFinish ? '' : ` before its kill point, ${requests} requests`}` : `killed after ${requests} requests + ${extraMs} ms`})`;
      options.log?.(`${what}: ${result.signal ?? `exit ${result.code}`}`);
      if (letFinish && !ended) report.bad.push(`${what}: still running after ${FINISH_LIMIT_MS} ms (hung)`);
      // Exit 1 is allowed: a kind may outlast its retries in a storm and resume next run.
      if (ended && (result.code === 2 || result.code === null || /unexpected error/.test(result.stderr))) {
        report.bad.push(`${what} exited ${result.code ?? result.signal}: ${result.stderr.slice(-2_000)}`);
      }
    }
  } finally {
    chaos.stop();
    sim.faults.clear();
  }
  return report;
}

/** Resolves true when the child ended before the kill point, false at the kill point. */
async function killPoint(
  sim: Simulator,
  run: SyncChild,
  requests: number,
  extraMs: number,
): Promise<boolean> {
  const start = sim.log.length;
  let ended = false;
  void run.done.then(() => (ended = true));
  const deadline = Date.now() + FINISH_LIMIT_MS;
  while (!ended && sim.log.length - start < requests && Date.now() < deadline) await sleep(2);
  return ended || (await waitOrExit(run, extraMs));
}

export interface SettleStep {
  readonly code: number | null;
  readonly stderr: string;
  readonly differences: string[];
}

/**
 * After the storm: one incremental run, then one --full run, each compared with the simulator. The
 * storm may have deleted more than --max-delete-share of a kind; those deletions are real, so the
 * --full run is told so (`--max-delete-share 1`, what a person would do after reading the refusal).
 */
export async function settle(
  sim: Simulator,
  db: string,
  deleted: ReadonlySet<string>,
): Promise<{ incremental: SettleStep; full: SettleStep }> {
  // No signal or kill is aimed at these runs: the program's main() in this process, as the bin runs it.
  const step = async (args: string[], mode: 'exact' | 'incremental'): Promise<SettleStep> => {
    const { code, stderr } = await runMain(['sync', '--db', db, ...args], syncEnv(sim));
    return { code, stderr, differences: await mirrorDifferences(db, sim.data.all(), deleted, mode) };
  };
  const incremental = await step([], 'incremental');
  const full = await step(['--full', '--max-delete-share', '1'], 'exact');
  return { incremental, full };
}

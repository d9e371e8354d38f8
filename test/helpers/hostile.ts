/**
 * The simulator of the hostile-listing tests (hostile-listings.test.ts, hostile-pages.test.ts): a
 * recent window of small records, closed after the test, with a hook called as each request is
 * answered, and what those tests read of its request log.
 */

import type { SimulatorData } from '../../src/simulator/index.js';
import {
  type FaultKind,
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../../src/simulator/index.js';
import type { SyncOptions } from '../../src/sync/types.js';
import { accountData } from './account-data.js';
import { onCleanup } from './cleanup.js';
import { readCount } from './mirror.js';

/** Called synchronously as each request is answered (before the client can send the next). */
let onRequest: (() => void) | undefined;

/** Sets the hook called as each request of the current test's simulator is answered. */
export function setOnRequest(hook: () => void): void {
  onRequest = hook;
}

/** A window of the last three days, ending an hour ago: the default of `start`. */
export const recent = () => ({
  from: new Date(Date.now() - 3 * 86_400_000),
  to: new Date(Date.now() - 3_600_000),
});

/** The account `start` would serve, without a server: for the tests of the engine over a FakeListing. */
export function account(options: SimulatorOptions): SimulatorData {
  return accountData({ seed: 31, utterancesPerJob: 3, wordsPerUtterance: 4, ...recent(), ...options });
}

/** A simulator closed after the current test (its hook cleared then too). */
export async function start(options: SimulatorOptions): Promise<Simulator> {
  const sim = await startSimulator({
    seed: 31,
    utterancesPerJob: 3,
    wordsPerUtterance: 4,
    ...recent(),
    ...options,
    onRequest: () => onRequest?.(),
  });
  onCleanup(async () => {
    await sim.close();
    onRequest = undefined;
  });
  return sim;
}

/** Injects `faults` into the requests that follow the `after`-th list request from now. */
export function injectAfter(s: Simulator, after: number, ...faults: FaultKind[]): void {
  let seen = 0;
  onRequest = () => {
    if (++seen === after) s.faults.inject(...faults);
  };
}

export function listQueries(s: Simulator, from = 0): URLSearchParams[] {
  return s.log
    .slice(from)
    .filter((e) => e.path.startsWith('/v2/'))
    .map((e) => new URLSearchParams(e.query));
}

export function deletedCount(db: string): Promise<number> {
  return readCount(db, 'SELECT count(*) FROM jobs WHERE deleted_at IS NOT NULL');
}

export const preRecordedOnly: Partial<SyncOptions> = { kinds: ['pre-recorded'], concurrency: 1 };

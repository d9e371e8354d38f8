/**
 * Which answers pause every request of a client: a 429 or a 503 that says when to come back
 * (Retry-After), never a 503 that does not.
 */
import { describe, expect, it } from 'vitest';
import type { FaultKind } from '../../../src/simulator/index.js';
import { apiFixtures } from '../../helpers/api.js';

const fixtures = apiFixtures({ preRecorded: 6, live: 6, seed: 4 });
const TOLERANCE_MS = 10;
/** ms: a backoff at least this long leaves the other list's request time to arrive first. */
const BACKOFF_SEEN_MS = 50;

/**
 * The first request of the live list answered with `fault`; while the client waits to retry it,
 * a request of the other list. What the service saw, the client's pause count and the backoff it
 * drew (ms).
 */
async function otherListDuringRetry(fault: FaultKind, retryAfterOn503: string | null) {
  const sim = await fixtures.simulator();
  sim.faults.retryAfter = '1';
  sim.faults.retryAfterOn503 = retryAfterOn503;
  let faulted = false;
  sim.faults.pick(({ path }) => {
    if (faulted || path !== '/v2/live') return undefined;
    faulted = true;
    return fault;
  });
  let other: Promise<unknown> | undefined;
  let delayMs = 0;
  const listing = fixtures.client(sim, {
    concurrency: 2,
    // A 503 without Retry-After waits a backoff of up to 100 ms.
    retryBaseMs: 100,
    onRetry: (retry) => {
      delayMs = retry.delayMs;
      other ??= listing.getPage('pre-recorded');
    },
  });
  await listing.getPage('live');
  await other;
  const failed = sim.log.find((entry) => entry.fault === fault)!;
  const otherList = sim.log.find((entry) => entry.path === '/v2/pre-recorded')!;
  const retried = sim.log.filter((entry) => entry.path === '/v2/live')[1]!;
  return { failed, otherList, retried, pauses: listing.stats.pauses, delayMs };
}

describe('answers that speak for the account pause every request', () => {
  it.each([
    ['a 429 with Retry-After', '429', null],
    ['a 503 with Retry-After', '503', '1'],
  ] as const)('%s: no request of another list goes out before it has run out', async (_, fault, on503) => {
    const { failed, otherList, pauses } = await otherListDuringRetry(fault, on503);
    expect(otherList.arrivedMs).toBeGreaterThanOrEqual(failed.answeredMs + 1_000 - TOLERANCE_MS);
    expect(pauses).toBe(1);
  });

  it('a 503 without Retry-After holds back only its own retry', async () => {
    // The backoff is drawn at random (full jitter); one too short for a request to go out within it
    // tells nothing, so the scenario runs again until it draws one of at least BACKOFF_SEEN_MS.
    let run = await otherListDuringRetry('503', null);
    for (let tries = 1; run.delayMs < BACKOFF_SEEN_MS && tries < 20; tries++)
      run = await otherListDuringRetry('503', null);
    expect(run.delayMs).toBeGreaterThanOrEqual(BACKOFF_SEEN_MS);
    // Asked for while the retry waits its backoff, the other list's page goes first.
    expect(run.otherList.arrivedMs).toBeLessThan(run.retried.arrivedMs);
    expect(run.pauses).toBe(0);
  });
});

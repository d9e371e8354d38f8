/**
 * A rate limit is the account's: a 429's Retry-After holds back every request of the run, and
 * repeated 429s lower the requests in flight. Checked from the service's side: the simulator
 * records when each request arrived, when it was answered and how many were in flight.
 */
import { describe, expect, it } from 'vitest';
import type { FaultRequest, RequestLogEntry, Simulator } from '../../../src/simulator/index.js';
import { apiFixtures } from '../../helpers/api.js';
import { migratedDb } from '../../helpers/migrated-db.js';
import { syncOnce } from '../../helpers/sync.js';

const fixtures = apiFixtures();

/** Slices fetched at once, and so the requests in flight at most. */
const CONCURRENCY = 4;
/** ms a request may be stamped early against the pause (rounding of the two readings of one clock). */
const TOLERANCE_MS = 10;
/**
 * The Retry-After of every 429 here, in seconds as the header gives it (the client reads a fraction
 * too), and in ms: long next to the answers' latency, so a request sent during it would show.
 */
const RETRY_AFTER = '0.5';
const RETRY_AFTER_MS = 500;

/**
 * 400 small jobs over the last three days, so that its queued and processing jobs (some fifty,
 * spread over the list) are young enough to be re-checked by the run after the back-fill. Each
 * answer takes `latencyMs`: the fetchers' requests overlap at the service, and a request sent just
 * before the client read a 429 cannot be answered before the client has read it.
 */
async function account(latencyMs: number): Promise<Simulator> {
  return fixtures.simulator({
    preRecorded: 400,
    live: 0,
    seed: 21,
    from: new Date(Date.now() - 3 * 86_400_000),
    to: new Date(Date.now() - 3_600_000),
    utterancesPerJob: 2,
    wordsPerUtterance: 2,
    latencyMs,
  });
}

/** A probe of the back-fill's plan: one item at an offset past the first page. */
function isProbe({ query }: FaultRequest): boolean {
  const params = new URLSearchParams(query);
  return params.get('limit') === '1' && Number(params.get('offset')) > 0;
}

/** A sync of the account's one kind: ten slices of two or three pages, `rateLimit` requests a second. */
const run = (sim: Simulator, db: string, rateLimit = 100) =>
  syncOnce(sim, db, { kinds: ['pre-recorded'], concurrency: CONCURRENCY, sliceJobs: 40, rateLimit });

/** The requests that arrived after `throttled` was answered and before its Retry-After ran out. */
function arrivedDuring(sim: Simulator, throttled: RequestLogEntry, retryAfterMs: number): RequestLogEntry[] {
  const end = throttled.answeredMs + retryAfterMs - TOLERANCE_MS;
  return sim.log.filter((entry) => entry.arrivedMs > throttled.answeredMs && entry.arrivedMs < end);
}

describe('a 429 holds back every request of the run', () => {
  it('sends nothing while its Retry-After runs: not a probe, a slice page or a pending re-check', async () => {
    const sim = await account(20);
    /** Arrival times of the requests answered 429 with RETRY_AFTER, by what they were. */
    const throttled = new Map<string, number>();
    let stage: 'back-fill' | 'next run' = 'back-fill';
    let pages = 0;
    let nextRun = 0;
    sim.faults.retryAfter = RETRY_AFTER;
    sim.faults.pick((request) => {
      const probe = isProbe(request);
      let what: string | undefined;
      if (stage === 'next run') what = ++nextRun === 3 ? 'a pending re-check' : undefined;
      else if (probe) what = throttled.has('a probe') ? undefined : 'a probe';
      else if (throttled.has('a probe') && ++pages === 6) what = 'a slice page';
      if (what === undefined) return undefined;
      throttled.set(what, request.arrivedMs);
      return '429';
    });
    const db = await migratedDb('rate-limit.duckdb');
    const first = await run(sim, db);
    expect(first.outcome).toBe('ok');
    stage = 'next run';
    const second = await run(sim, db);
    expect(second.outcome).toBe('ok');
    // Each 429 began a pause, counted in its run's summary (and the worker's metrics).
    expect([first.kinds[0]?.pauses, second.kinds[0]?.pauses]).toEqual([2, 1]);
    expect(second.kinds[0]?.pendingRechecked).toBeGreaterThan(CONCURRENCY);
    expect([...throttled.keys()]).toEqual(['a probe', 'a slice page', 'a pending re-check']);

    for (const [what, arrivedMs] of throttled) {
      const entry = sim.log.find((e) => e.arrivedMs === arrivedMs && e.status === 429);
      expect(entry, what).toBeDefined();
      // Requests sent before the client read the 429 can still arrive after it was answered: at
      // most one for each other place in flight. Nothing else until the Retry-After has run out.
      const during = arrivedDuring(sim, entry!, RETRY_AFTER_MS);
      expect(during.length, `${what}: ${during.map((e) => e.query).join('\n')}`).toBeLessThanOrEqual(
        CONCURRENCY - 1,
      );
      // The walk went on after it.
      expect(sim.log.some((e) => e.arrivedMs >= entry!.answeredMs + RETRY_AFTER_MS - TOLERANCE_MS)).toBe(
        true,
      );
    }
  });
});

describe('repeated 429s lower the requests in flight', () => {
  it('halves them after a second 429 within the span, as the service sees it', async () => {
    const sim = await account(30);
    const throttled: number[] = [];
    let pages = 0;
    sim.faults.retryAfter = RETRY_AFTER;
    sim.faults.pick((request) => {
      if (isProbe(request)) return undefined;
      // The tenth page of the walk (its slices under way), then the first request that arrived once
      // that pause had run out since the 429 was answered: a second 429, sent when the client had
      // heard of the first. Counted from the answer, so that a request sent before the client read
      // the 429 could pass for it only if the event loop stalled for the whole pause.
      const answered = throttled.length === 1 ? sim.log.find((e) => e.arrivedMs === throttled[0]) : undefined;
      const second =
        answered !== undefined && request.arrivedMs > answered.answeredMs + RETRY_AFTER_MS - TOLERANCE_MS;
      if (!((throttled.length === 0 && ++pages === 10) || second)) return undefined;
      throttled.push(request.arrivedMs);
      return '429';
    });
    expect((await run(sim, await migratedDb('halve.duckdb'), 1_000)).outcome).toBe('ok');
    expect(throttled).toHaveLength(2);
    const [first, second] = throttled.map((at) => sim.log.find((e) => e.arrivedMs === at)!);
    const walk = sim.log.filter((e) => !isProbe(e));
    const before = walk.filter((e) => e.arrivedMs < first!.arrivedMs);
    // Fewer than RESTORE_AFTER answers after the halving, so none of the places came back yet.
    const after = walk
      .filter((e) => e.arrivedMs > second!.answeredMs + RETRY_AFTER_MS - TOLERANCE_MS)
      .slice(0, 15);
    expect(after.length).toBeGreaterThan(5);
    expect(Math.max(...before.map((e) => e.inFlight))).toBeGreaterThan(2);
    expect(Math.max(...after.map((e) => e.inFlight))).toBeLessThanOrEqual(CONCURRENCY / 2);
  });
});

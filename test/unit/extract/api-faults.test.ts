import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConfigError,
  ProtocolError,
  RateLimitedError,
  UpstreamError,
} from '../../../src/errors.js';
import { type ClientOptions, ListingClient } from '../../../src/extract/index.js';
import type { FaultKind, Simulator } from '../../../src/simulator/index.js';
import { apiFixtures, walkIds } from '../../helpers/api.js';
import { freePort } from '../../helpers/net.js';

const fixtures = apiFixtures({ preRecorded: 12, live: 6, seed: 3 });
const client = fixtures.client;

async function simulator(): Promise<Simulator> {
  const sim = await fixtures.simulator();
  sim.faults.retryAfter = '0';
  return sim;
}

const preRecordedIds = (sim: Simulator): string[] =>
  sim.data
    .all()
    .filter((record) => record['kind'] === 'pre-recorded')
    .map((record) => record['id'] as string);

interface FaultCase {
  readonly what: string;
  readonly fault: FaultKind;
  readonly error: abstract new (...args: never[]) => Error;
  readonly prepare?: (sim: Simulator) => void;
  readonly options?: Partial<ClientOptions>;
  /** What the wait before the retry must have been, ms. */
  readonly delay?: (ms: number) => boolean;
}

describe('transient faults are retried and the walk completes', () => {
  const cases: FaultCase[] = [
    {
      what: '429 with Retry-After in seconds',
      fault: '429',
      error: RateLimitedError,
      prepare: (sim) => (sim.faults.retryAfter = '1'),
      delay: (ms) => ms === 1_000,
    },
    {
      what: '429 with Retry-After as an HTTP date',
      fault: '429',
      error: RateLimitedError,
      prepare: (sim) => (sim.faults.retryAfter = new Date(Date.now() + 1_000).toUTCString()),
      // An HTTP date has whole seconds: the wait is what is left of that second.
      delay: (ms) => ms >= 0 && ms <= 1_000,
    },
    {
      what: 'a Retry-After above the cap, cut to the cap',
      fault: '429',
      error: RateLimitedError,
      prepare: (sim) => (sim.faults.retryAfter = '3600'),
      options: { retryAfterCapMs: 50 },
      delay: (ms) => ms === 50,
    },
    { what: '408', fault: '408', error: UpstreamError },
    { what: '500', fault: '500', error: UpstreamError },
    { what: '502', fault: '502', error: UpstreamError },
    { what: '503', fault: '503', error: UpstreamError },
    { what: '504', fault: '504', error: UpstreamError },
    { what: 'a reset connection', fault: 'reset', error: UpstreamError },
    { what: 'a truncated body', fault: 'truncate', error: ProtocolError },
    { what: 'a body that is not JSON', fault: 'bad-json', error: ProtocolError },
    {
      what: 'a body timeout (chunks slower than bodyTimeoutMs)',
      fault: 'slow',
      error: UpstreamError,
      // undici checks body timeouts on a ~1 s clock, so the gap between chunks (slowMs / 8 = 1.5 s)
      // must exceed bodyTimeoutMs by more than that to fail for sure.
      prepare: (sim) => (sim.faults.slowMs = 12_000),
      options: { bodyTimeoutMs: 100 },
    },
    {
      what: 'a body that trickles in, each chunk within the body timeout, slower than the least rate',
      fault: 'slow',
      error: ProtocolError,
      prepare: (sim) => (sim.faults.slowMs = 4_000),
      options: { slowBody: { bytesPerSecond: 1_000_000_000, afterMs: 300 } },
    },
  ];
  for (const { what, fault, error, prepare, options, delay } of cases) {
    it(`retries ${what}`, async () => {
      const sim = await simulator();
      prepare?.(sim);
      const retried: { error: Error; delayMs: number }[] = [];
      const listing = client(sim, { ...options, onRetry: (info) => retried.push(info) });
      sim.faults.inject(fault);
      expect(await walkIds(listing, 'pre-recorded', { limit: 5 })).toEqual(preRecordedIds(sim));
      expect(sim.log[0]?.fault).toBe(fault);
      expect(listing.stats.retries).toBe(1);
      expect(retried).toHaveLength(1);
      expect(retried[0]?.error).toBeInstanceOf(error);
      expect(retried[0]?.error).toMatchObject({ retryable: true });
      if (delay) expect(delay(retried[0]?.delayMs ?? -1)).toBe(true);
      expect(listing.stats.requests).toBe(sim.log.length);
      expect(sim.log.at(-1)?.status).toBe(200);
    });
  }

  it('waits out a slow body that stays within the body timeout, without a retry', async () => {
    const sim = await simulator();
    sim.faults.slowMs = 400;
    const listing = client(sim, { bodyTimeoutMs: 5_000 });
    sim.faults.inject('slow');
    expect(await walkIds(listing, 'pre-recorded', { limit: 5 })).toEqual(preRecordedIds(sim));
    expect(listing.stats.retries).toBe(0);
  });

  it('completes a walk through random faults of every retryable kind, each item once', async () => {
    const sim = await simulator();
    sim.faults.slowMs = 80;
    sim.faults.setRandom({
      rate: 0.5,
      kinds: ['429', '500', '502', '503', '504', 'reset', 'truncate', 'bad-json', 'slow'],
      seed: 9,
    });
    const listing = client(sim, { maxAttempts: 12 });
    expect(await walkIds(listing, 'pre-recorded', { limit: 2 })).toEqual(preRecordedIds(sim));
    expect(listing.stats.retries).toBeGreaterThan(0);
    expect(listing.stats.retries).toBe(
      sim.log.filter((entry) => entry.fault && entry.fault !== 'slow').length,
    );
  });
});

describe('failures that retrying cannot fix, or that outlast the attempts', () => {
  it('gives up after maxAttempts with the last typed error', async () => {
    const sim = await simulator();
    sim.faults.inject('503', '503', '503', '503', '503');
    const listing = client(sim, { maxAttempts: 3 });
    const error = await listing.getPage('live').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 503, retryable: true });
    expect(sim.log).toHaveLength(3);
    expect(listing.stats).toMatchObject({ requests: 3, retries: 2 });
  });

  it('ends a run of 429s with a RateLimitedError', async () => {
    const sim = await simulator();
    sim.faults.inject('429', '429');
    const error = await client(sim, { maxAttempts: 2 })
      .getPage('live')
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(sim.log).toHaveLength(2);
  });

  it('does not retry a refused key and says where the key comes from', async () => {
    const sim = await simulator();
    const listing = new ListingClient({ baseUrl: sim.url, apiKey: 'not-the-key', retryBaseMs: 1 });
    fixtures.track(listing);
    const error = await listing.getPage('live').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).toLine()).toMatch(/refused the API key.*TSYNC_API_KEY/);
    expect(sim.log).toHaveLength(1);
  });

  it('does not retry a 404 and calls it a wrong base URL, a setting to fix', async () => {
    const sim = await simulator();
    const listing = client(sim, { baseUrl: `${sim.url}/api` });
    const error = await listing.getPage('live').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ retryable: false, exitCode: 2 });
    expect((error as ConfigError).toLine()).toMatch(/base URL is probably wrong.*TSYNC_BASE_URL/);
    expect(sim.log).toHaveLength(1);
  });

  it("does not retry a 400 and quotes the service's explanation", async () => {
    const sim = await simulator();
    // A five-digit year is a valid Date whose ISO form (+010000-...) the simulator refuses.
    const error = await client(sim)
      .getPage('live', { afterDate: new Date(Date.UTC(10_000, 0, 1)) })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect((error as UpstreamError).message).toMatch(/HTTP 400.*after_date must be a valid ISO 8601/);
    expect(sim.log).toHaveLength(1);
  });

  it('retries a refused connection, then says to check the base URL', async () => {
    const port = await freePort();
    const listing = new ListingClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: 'k',
      maxAttempts: 3,
      retryBaseMs: 1,
    });
    fixtures.track(listing);
    const error = await listing.getPage('live').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).toLine()).toMatch(/ECONNREFUSED.*TSYNC_BASE_URL/);
    expect(listing.stats).toMatchObject({ requests: 3, retries: 2 });
  });

  it('stops waiting for a retry at once when aborted, with the caller’s reason', async () => {
    const sim = await simulator();
    // An hour-long Retry-After: were the abort ignored, the test would time out.
    sim.faults.retryAfter = '3600';
    sim.faults.inject('429');
    const controller = new AbortController();
    const reason = new Error('stop now');
    const listing = client(sim, { retryAfterCapMs: 3_600_000, onRetry: () => controller.abort(reason) });
    await expect(listing.getPage('live', {}, { signal: controller.signal })).rejects.toBe(reason);
    expect(sim.log).toHaveLength(1);
  });

  it('abandons a request in flight when aborted', async () => {
    const sim = await simulator();
    // The answer would come after 2 s and succeed: only the abort can make this reject.
    sim.setLatency(2_000);
    const controller = new AbortController();
    const reason = new Error('shutting down');
    const pending = client(sim).getPage('live', {}, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 50);
    await expect(pending).rejects.toBe(reason);
  });

  it('stops waiting for the rate limit when aborted', async () => {
    const sim = await simulator();
    // One request per 100 s: the second waits for the limiter until aborted.
    const listing = client(sim, { rateLimit: 0.01 });
    await listing.getPage('live', { limit: 1 });
    const controller = new AbortController();
    const waiting = listing.getPage('live', { limit: 1 }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('enough')), 20);
    await expect(waiting).rejects.toThrow('enough');
    expect(sim.log).toHaveLength(1);
  });
});

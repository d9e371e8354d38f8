/**
 * Walking a list through the client, as the engine does (src/extract/walk-slice.ts): the walk keeps
 * its own path, follows only the offset of `next`, survives a server-side limit cap, refuses a
 * `next` that does not advance, and never sends anything to the origin a `next` names. The client
 * keeps a base URL's path prefix and shares one rate limit across calls.
 */
import diagnostics from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { syncDefaults } from '../../../src/config/sync-defaults.js';
import { ProtocolError } from '../../../src/errors.js';
import { LIST_NAMES, ListingClient, type ListName } from '../../../src/extract/index.js';
import { DEFAULT_ANOMALY_PAUSE_MS } from '../../../src/extract/page-anomalies.js';
import { PAGE_TARGET_BYTES, PageSizer } from '../../../src/extract/page-sizer.js';
import { walkSlice } from '../../../src/extract/walk-slice.js';
import type { Simulator } from '../../../src/simulator/index.js';
import { apiFixtures } from '../../helpers/api.js';

const fixtures = apiFixtures({ preRecorded: 23, live: 17, seed: 5 });
const { simulator, client } = fixtures;

function idsOf(sim: Simulator, list: ListName): string[] {
  return sim.data
    .all()
    .filter((record) => list === 'transcription' || record['kind'] === list)
    .map((record) => record['id'] as string);
}

/** The ids of a whole walk of `list` (one slice over all history), in the order served. */
async function walkedIds(listing: ListingClient, list: ListName, pageSize: number): Promise<string[]> {
  const ids: string[] = [];
  const slice = { after: null, before: new Date('2100-01-01T00:00:00.000Z') };
  const options = {
    sizer: new PageSizer(pageSize),
    budget: { pageBytes: PAGE_TARGET_BYTES, recordBytes: syncDefaults().maxRecordBytes },
    anomalyPauseMs: DEFAULT_ANOMALY_PAUSE_MS,
    maxRestarts: 0,
  };
  for await (const page of walkSlice(listing, list, slice, options)) {
    for (const id of page.ids) if (id !== undefined) ids.push(id);
  }
  return ids;
}

describe('walking a list', () => {
  for (const list of LIST_NAMES) {
    it(`walks all of ${list} on its own path although next points at /v2/transcription`, async () => {
      const sim = await simulator();
      const ids = await walkedIds(client(sim), list, 4);
      expect(ids).toEqual(idsOf(sim, list));
      expect(sim.log.length).toBeGreaterThan(3);
      expect(new Set(sim.log.map((entry) => entry.path))).toEqual(new Set([`/v2/${list}`]));
    });
  }

  it('follows the offset the service gives when it serves fewer than asked, skipping nothing', async () => {
    const sim = await simulator({ preRecorded: 30, limitCap: 7 });
    const ids = await walkedIds(client(sim), 'pre-recorded', 50);
    expect(ids).toEqual(idsOf(sim, 'pre-recorded'));
    expect(new Set(ids).size).toBe(30);
    const limits = sim.log.map((entry) => Number(new URLSearchParams(entry.query).get('limit')));
    expect(Math.max(...limits)).toBeGreaterThan(7);
  });

  it('fails with a non-retryable ProtocolError when next does not advance', async () => {
    const sim = await simulator();
    sim.faults.inject('next-stuck');
    const error = await walkedIds(client(sim), 'live', 5).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).retryable).toBe(false);
    expect((error as ProtocolError).message).toMatch(/does not advance/);
    expect(sim.log).toHaveLength(1);
  });

  it('never sends a request, or the key, to the origin a next link names', async () => {
    const sim = await simulator();
    const simHost = new URL(sim.url);
    const connects: string[] = [];
    const sends: { to: string; hadKey: boolean }[] = [];
    const onConnect = (message: unknown): void => {
      const { connectParams } = message as { connectParams: { hostname: string; port: string } };
      connects.push(`${connectParams.hostname}:${connectParams.port}`);
    };
    const onSend = (message: unknown): void => {
      const { headers, socket } = message as {
        headers: string;
        socket: { remoteAddress?: string; remotePort?: number };
      };
      sends.push({
        to: `${socket.remoteAddress}:${socket.remotePort}`,
        hadKey: headers.includes(sim.apiKey),
      });
    };
    diagnostics.subscribe('undici:client:beforeConnect', onConnect);
    diagnostics.subscribe('undici:client:sendHeaders', onSend);
    try {
      sim.faults.inject('next-foreign-origin', 'next-foreign-origin');
      const ids = await walkedIds(client(sim), 'pre-recorded', 6);
      expect(ids).toEqual(idsOf(sim, 'pre-recorded'));
    } finally {
      diagnostics.unsubscribe('undici:client:beforeConnect', onConnect);
      diagnostics.unsubscribe('undici:client:sendHeaders', onSend);
    }
    const simAddress = `${simHost.hostname}:${simHost.port}`;
    expect(sim.log.filter((entry) => entry.fault === 'next-foreign-origin')).toHaveLength(2);
    expect(sends.length).toBe(sim.log.length);
    expect(sends.every((send) => send.to === simAddress && send.hadKey)).toBe(true);
    expect(new Set(connects)).toEqual(new Set([simAddress]));
    expect(sim.log.every((entry) => entry.path === '/v2/pre-recorded' && entry.hadKey)).toBe(true);
  });

  it('keeps a path prefix of the base URL', async () => {
    const sim = await simulator();
    const listing = new ListingClient({ baseUrl: `${sim.url}/proxy/`, apiKey: sim.apiKey, maxAttempts: 1 });
    fixtures.track(listing);
    await listing.getPage('live').catch(() => undefined);
    expect(sim.log[0]?.path).toBe('/proxy/v2/live');
  });
});

describe('the rate limit', () => {
  it('spaces concurrent requests of one client: 10 requests at 20/s take at least 400 ms', async () => {
    const sim = await simulator();
    const listing = client(sim, { rateLimit: 20 });
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 10 }, (_, index) => listing.getPage('live', { offset: index, limit: 1 })),
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);
    expect(sim.log).toHaveLength(10);
  });
});

/**
 * Every filter reaches the simulator as the service expects it, and the items that come back are
 * exactly the matching ones (compared with the simulator's own data, newest first).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import type { ClientOptions, ListingClient, ListName, ListParams } from '../../../src/extract/index.js';
import { type JobRecord, type Simulator, startSimulator } from '../../../src/simulator/index.js';
import { apiFixtures, walkIds } from '../../helpers/api.js';

let sim: Simulator;
const fixtures = apiFixtures();

beforeAll(async () => {
  sim = await startSimulator({ preRecorded: 60, live: 40, seed: 11 });
});
afterAll(async () => {
  await sim.close();
});

const client = (options: Partial<ClientOptions> = {}): ListingClient => fixtures.client(sim, options);

/** Requests the simulator received from `from` on, as parsed queries. */
function queriesSince(from: number): URLSearchParams[] {
  return sim.log.slice(from).map((entry) => new URLSearchParams(entry.query));
}

function expected(list: ListName, keep: (record: JobRecord) => boolean): string[] {
  return sim.data
    .all()
    .filter((record) => list === 'transcription' || record['kind'] === list)
    .filter(keep)
    .map((record) => record['id'] as string);
}

const createdMs = (record: JobRecord): number => Date.parse(record['created_at'] as string);

describe('filters reach the service', () => {
  it('filters by several statuses and a before/after range', async () => {
    const all = sim.data.all().filter((record) => record['kind'] === 'pre-recorded');
    const after = new Date(createdMs(all[40]!));
    const before = new Date(createdMs(all[5]!));
    const from = sim.log.length;
    const ids = await walkIds(client(), 'pre-recorded', {
      status: ['done', 'error'],
      afterDate: after,
      beforeDate: before,
      limit: 8,
    });
    const want = expected(
      'pre-recorded',
      (r) =>
        ['done', 'error'].includes(r['status'] as string) &&
        createdMs(r) > after.getTime() &&
        createdMs(r) < before.getTime(),
    );
    expect(want.length).toBeGreaterThan(8);
    expect(ids).toEqual(want);
    for (const query of queriesSince(from)) {
      expect(query.getAll('status')).toEqual(['done', 'error']);
      expect(query.get('after_date')).toBe(after.toISOString());
      expect(query.get('before_date')).toBe(before.toISOString());
    }
  });

  it('filters by calendar date', async () => {
    const day = (sim.data.all()[3]!['created_at'] as string).slice(0, 10);
    const from = sim.log.length;
    const ids = await walkIds(client(), 'transcription', { date: day });
    expect(ids).toEqual(expected('transcription', (r) => (r['created_at'] as string).startsWith(day)));
    expect(ids.length).toBeGreaterThan(0);
    expect(queriesSince(from)[0]?.get('date')).toBe(day);
  });

  it('filters /v2/transcription by kind', async () => {
    const from = sim.log.length;
    const ids = await walkIds(client(), 'transcription', { kind: ['live'], limit: 15 });
    expect(ids).toEqual(expected('live', () => true));
    expect(queriesSince(from).every((q) => q.getAll('kind').join() === 'live')).toBe(true);
  });

  it('asks for one page at the given offset and limit', async () => {
    const page = await client().getPage('pre-recorded', { offset: 5, limit: 3 });
    expect(page.items.map((item) => item.heads.id)).toEqual(expected('pre-recorded', () => true).slice(5, 8));
    expect(page).toMatchObject({ list: 'pre-recorded', offset: 5, limit: 3, next: { offset: 8, limit: 3 } });
    expect(page.bytes).toBeGreaterThan(0);
  });
});

describe('bad filters', () => {
  const invalid: [ListName, ListParams][] = [
    ['live', { offset: -1 }],
    ['live', { limit: 0 }],
    ['pre-recorded', { beforeDate: 'not a date' }],
    ['pre-recorded', { date: '2024-13-01' }],
    ['transcription', { status: ['finished' as 'done'] }],
    ['live', { kind: ['live'] }],
  ];
  for (const [list, params] of invalid) {
    it(`are refused before any request: ${list} ${JSON.stringify(params)}`, async () => {
      const listing = client();
      const before = sim.log.length;
      await expect(listing.getPage(list, params)).rejects.toBeInstanceOf(ConfigError);
      expect(sim.log.length).toBe(before);
      expect(listing.stats.requests).toBe(0);
    });
  }
});

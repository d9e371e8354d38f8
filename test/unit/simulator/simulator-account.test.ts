import { describe, expect, it } from 'vitest';
import {
  generateDataset,
  type JobRecord,
  newestFirst,
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../../../src/simulator/index.js';
import { onCleanup } from '../../helpers/cleanup.js';

type Obj = Record<string, unknown>;

async function simulator(options: SimulatorOptions): Promise<Simulator> {
  const sim = await startSimulator(options);
  onCleanup(() => sim.close());
  return sim;
}

async function body(sim: Simulator, path: string): Promise<string> {
  const res = await fetch(`${sim.url}${path}`, { headers: { 'x-service-key': sim.apiKey } });
  expect(res.status).toBe(200);
  return res.text();
}

/** The items of a page exactly as sent: the bytes between `"items":[` and the closing `]}`. */
function itemBytes(page: string): string {
  return page.slice(page.indexOf('"items":[') + '"items":['.length, -2);
}

/** Every item of a list, walking offsets (the links drop filters). */
async function listAll(sim: Simulator, path: string, query = '', limit = 100): Promise<Obj[]> {
  const items: Obj[] = [];
  for (let offset = 0; ; offset += limit) {
    const page = JSON.parse(
      await body(sim, `${path}?${query}${query ? '&' : ''}offset=${offset}&limit=${limit}`),
    ) as { next: string | null; items: Obj[] };
    items.push(...page.items);
    if (page.next === null) return items;
  }
}

const ids = (records: readonly Obj[]) => records.map((r) => r['id']);
const SMALL = { utterancesPerJob: 1, wordsPerUtterance: 2 } as const;

describe('a generated account', () => {
  it('serves the jobs of a shorter history as the oldest of a longer one, byte for byte', async () => {
    // Both histories span several days: 120 and 400 jobs at 100 a day.
    const timeline = { start: new Date('2025-03-01T00:00:00.000Z'), jobsPerDay: 100 };
    const options = { seed: 12, timeline, utterancesPerJob: 4, wordsPerUtterance: 5, limitCap: 50 };
    const short = await simulator({ ...options, jobs: 120 });
    const long = await simulator({ ...options, jobs: 400 });
    for (let offset = 0; offset < 120; offset += 40) {
      const mine = await body(short, `/v2/transcription?offset=${offset}&limit=40`);
      const theirs = await body(long, `/v2/transcription?offset=${280 + offset}&limit=40`);
      expect(itemBytes(theirs)).toBe(itemBytes(mine));
    }
    const newer = await listAll(long, '/v2/transcription', '', 50);
    const oldestShort = String((await listAll(short, '/v2/transcription', '', 50)).at(0)?.['created_at']);
    expect(newer.slice(0, 280).every((r) => String(r['created_at']) > oldestShort)).toBe(true);
  });

  it('lists by index arithmetic exactly what filtering and sorting every record gives, across blocks and ties', async () => {
    // 1,200 jobs (five blocks of the index) in one second: slots under 1 ms, so many created_at
    // ties, broken by id.
    const options = {
      seed: 4,
      preRecorded: 1_120,
      live: 80,
      ...SMALL,
      from: new Date('2026-05-01T00:00:00.000Z'),
      to: new Date('2026-05-01T00:00:01.000Z'),
    };
    const sim = await simulator({ ...options, limitCap: 1_000 });
    const records = generateDataset(options);
    expect(new Set(records.map((r) => r['created_at'])).size).toBeLessThan(records.length);
    const want = (keep: (r: JobRecord) => boolean) => ids(records.filter(keep));
    const at = String(records[567]!['created_at']);
    const cases: [string, string, (r: JobRecord) => boolean][] = [
      ['/v2/transcription', '', () => true],
      ['/v2/live', '', (r) => r['kind'] === 'live'],
      // A few jobs hundreds of indexes apart: found through the block counts, not a scan.
      ['/v2/live', 'status=queued', (r) => r['kind'] === 'live' && r['status'] === 'queued'],
      ['/v2/pre-recorded', 'status=queued', (r) => r['kind'] === 'pre-recorded' && r['status'] === 'queued'],
      [
        '/v2/transcription',
        'status=processing,error',
        (r) => ['processing', 'error'].includes(String(r['status'])),
      ],
      ['/v2/live', `before_date=${at}`, (r) => r['kind'] === 'live' && String(r['created_at']) < at],
      [
        '/v2/transcription',
        `after_date=${at}&status=done`,
        (r) => String(r['created_at']) > at && r['status'] === 'done',
      ],
      [
        '/v2/pre-recorded',
        'custom_metadata[team]=sales&status=done',
        (r) =>
          r['kind'] === 'pre-recorded' &&
          r['status'] === 'done' &&
          (r['custom_metadata'] as Obj | null)?.['team'] === 'sales',
      ],
    ];
    for (const [path, query, keep] of cases) {
      for (const limit of [61, 300]) {
        expect(ids(await listAll(sim, path, query, limit)), `${path}?${query} limit ${limit}`).toEqual(
          want(keep),
        );
      }
    }
  });

  it('merges added, edited and deleted jobs into the generated list at their places', async () => {
    const options = { seed: 8, preRecorded: 250, live: 250, ...SMALL };
    const sim = await simulator(options);
    const records = generateDataset(options);
    const expected = new Map(records.map((r) => [String(r['id']), r]));
    for (const n of [0, 17, 249, 499]) {
      const id = String(records[n]!['id']);
      expect(sim.data.delete(id)).toBe(true);
      expect(sim.data.delete(id)).toBe(false);
      expected.delete(id);
    }
    for (const n of [5, 187, 437]) {
      const id = String(records[n]!['id']);
      const edited = sim.data.edit(id, (r) => {
        r['custom_metadata'] = { edited: n };
      });
      expected.set(id, edited);
    }
    // A created_at moved far back, one tied with a generated job, and new ones.
    const moved = sim.data.edit(String(records[10]!['id']), (r) => {
      r['created_at'] = '2020-01-01T00:00:00.000Z';
    });
    expected.set(String(moved['id']), moved);
    for (const createdAt of [
      records[156]!['created_at'],
      records[375]!['created_at'],
      '2026-11-02T00:00:00.000Z',
    ]) {
      const added = sim.data.add({ kind: 'live', status: 'done', createdAt: new Date(String(createdAt)) });
      expected.set(String(added['id']), added);
    }
    const want = [...expected.values()].sort(newestFirst);
    for (const limit of [9, 100])
      expect(ids(await listAll(sim, '/v2/transcription', '', limit))).toEqual(ids(want));
    expect(ids(await listAll(sim, '/v2/live', 'status=done', 13))).toEqual(
      ids(want.filter((r) => r['kind'] === 'live' && r['status'] === 'done')),
    );
    expect(sim.data.count()).toBe(want.length);
    expect(ids(sim.data.slice(495, 1_000))).toEqual(ids(want.slice(495)));
    expect(sim.data.get(String(records[1]!['id']))).toEqual(JSON.parse(JSON.stringify(records[1])));
    expect(sim.data.get(String(records[0]!['id']))).toBeUndefined();
  });
});

describe('a growing account', () => {
  const HOUR = 3_600_000;
  const start = Date.parse('2026-06-01T12:00:00.000Z');

  async function growing(clock: () => number): Promise<Simulator> {
    return simulator({
      seed: 9,
      jobs: 200,
      ...SMALL,
      timeline: { start: new Date(start - 10 * 24 * HOUR), jobsPerDay: 20 },
      grow: { jobsPerMinute: 60, settleMs: 120_000, startMs: start },
      clock,
      limitCap: 1_000,
    });
  }

  it('adds jobs as the clock moves, settles the pending ones and deletes a few older ones', async () => {
    let now = start;
    const sim = await growing(() => now);
    const before = await listAll(sim, '/v2/transcription', '', 1_000);
    expect(before).toHaveLength(200);
    expect(before.some((r) => r['status'] === 'queued' || r['status'] === 'processing')).toBe(true);

    now = start + 60_000;
    const minute = await listAll(sim, '/v2/transcription', '', 1_000);
    const arrived = minute.filter((r) => Date.parse(String(r['created_at'])) > start);
    expect(arrived.length).toBeGreaterThanOrEqual(58);
    expect(arrived.length).toBeLessThanOrEqual(61);
    expect(Date.parse(String(arrived[0]!['created_at']))).toBeLessThanOrEqual(now);
    expect(['queued', 'processing']).toContain(arrived[0]!['status']);

    now = start + 20 * 60_000;
    const later = await listAll(sim, '/v2/transcription', '', 1_000);
    const pending = later.filter((r) => r['status'] === 'queued' || r['status'] === 'processing');
    expect(pending.length).toBeGreaterThan(0);
    for (const r of pending) expect(Date.parse(String(r['created_at']))).toBeGreaterThan(now - 120_000);
    const settled = new Map(later.map((r) => [r['id'], r]));
    for (const r of arrived) {
      const current = settled.get(r['id']);
      if (current === undefined) continue;
      expect(['done', 'error']).toContain(current['status']);
      expect(Date.parse(String(current['completed_at']))).toBeLessThanOrEqual(now);
    }
    const gone = before.filter((r) => !settled.has(r['id']));
    expect(gone.length).toBeGreaterThan(0);
    const history = later.filter((r) => Date.parse(String(r['created_at'])) <= start);
    expect(history).toHaveLength(200 - gone.length);
    expect(later.length - history.length).toBeGreaterThan(1_100);
    expect(later.length - history.length).toBeLessThanOrEqual(1_201);
  });

  it('is the same account at the same instant however often it was asked', async () => {
    let now = start;
    const often = await growing(() => now);
    for (; now < start + 15 * 60_000; now += 37_000) await body(often, '/v2/live?limit=1');
    const once = await growing(() => now);
    const walk = async (sim: Simulator) => {
      const pages: string[] = [];
      for (let offset = 0; offset < 1_200; offset += 400)
        pages.push(itemBytes(await body(sim, `/v2/transcription?offset=${offset}&limit=400`)));
      return pages.join(',');
    };
    const [a, b] = [await walk(once), await walk(often)];
    expect(a.length).toBeGreaterThan(100_000);
    expect(a === b).toBe(true);
  });
});

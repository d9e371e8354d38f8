import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobRecord, type Simulator, startSimulator } from '../../../src/simulator/index.js';

type Obj = Record<string, unknown>;
interface Envelope {
  first: string;
  current: string;
  next: string | null;
  items: Obj[];
}

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ seed: 21, preRecorded: 60, live: 40, utterancesPerJob: 3, limitCap: 50 });
});
afterAll(async () => {
  await sim.close();
});

async function get(
  path: string,
  query = '',
  key: string | null = sim.apiKey,
): Promise<{ status: number; body: Obj }> {
  const res = await fetch(`${sim.url}${path}${query ? `?${query}` : ''}`, {
    headers: key === null ? {} : { 'x-service-key': key },
  });
  return { status: res.status, body: (await res.json()) as Obj };
}

async function list(path: string, query = ''): Promise<Envelope> {
  const { status, body } = await get(path, query);
  expect(status).toBe(200);
  return body as unknown as Envelope;
}

/** Every item of a filtered list, walking offsets ourselves (the links drop filters). */
async function listAll(path: string, query = ''): Promise<Obj[]> {
  const items: Obj[] = [];
  for (let offset = 0; ; offset += 50) {
    const page = await list(path, `${query}${query ? '&' : ''}offset=${offset}&limit=50`);
    items.push(...page.items);
    if (page.next === null) return items;
  }
}

const ids = (items: readonly Obj[]) => items.map((i) => i['id']);
const expected = (keep: (r: JobRecord) => boolean) => ids(sim.data.all().filter(keep));

describe('the simulator over HTTP', () => {
  it('refuses a request without the key, or with a wrong one, with a 401 error body', async () => {
    for (const key of [null, 'wrong-key']) {
      const { status, body } = await get('/v2/pre-recorded', '', key);
      expect(status).toBe(401);
      expect(Object.keys(body).sort()).toEqual(['message', 'path', 'request_id', 'statusCode', 'timestamp']);
      expect(body['statusCode']).toBe(401);
      expect(body['path']).toBe('/v2/pre-recorded');
    }
    expect(sim.log.slice(-2).map((e) => [e.status, e.hadKey])).toEqual([
      [401, false],
      [401, true],
    ]);
  });

  it('answers 404 with a JSON body outside the three lists', async () => {
    const { status, body } = await get('/v2/pre-recorded/some-id');
    expect(status).toBe(404);
    expect(body['statusCode']).toBe(404);
  });

  it.each([
    ['offset=-1'],
    ['limit=0'],
    ['limit=ten'],
    ['date=2026-13-01'],
    ['before_date=yesterday'],
    ['after_date=1700000000'],
    ['status=finished'],
    ['status=done,finished'],
    ['custom_metadata={"team":'],
  ])('rejects %s with a 400 listing the validation errors', async (query) => {
    const { status, body } = await get('/v2/pre-recorded', query);
    expect(status).toBe(400);
    expect(body['statusCode']).toBe(400);
    expect((body['validation_errors'] as string[]).length).toBeGreaterThan(0);
  });

  it('checks kind on /v2/transcription only', async () => {
    expect((await get('/v2/transcription', 'kind=podcast')).status).toBe(400);
    expect((await get('/v2/live', 'kind=podcast')).status).toBe(200);
  });

  it('lists each kind on its own path and both on /v2/transcription, newest first with ties by id', async () => {
    const all = await listAll('/v2/transcription');
    expect(all).toHaveLength(100);
    const sorted = [...all].sort((a, b) =>
      a['created_at'] === b['created_at']
        ? String(b['id']).localeCompare(String(a['id']))
        : String(b['created_at']).localeCompare(String(a['created_at'])),
    );
    expect(ids(all)).toEqual(ids(sorted));
    expect(ids(await listAll('/v2/pre-recorded'))).toEqual(
      ids(all.filter((i) => i['kind'] === 'pre-recorded')),
    );
    expect(ids(await listAll('/v2/live'))).toEqual(ids(all.filter((i) => i['kind'] === 'live')));
    expect(ids(await listAll('/v2/transcription', 'kind=live'))).toEqual(
      ids(all.filter((i) => i['kind'] === 'live')),
    );
  });

  it('serves 20 items by default and caps the limit, showing the served limit in the links', async () => {
    expect((await list('/v2/transcription')).items).toHaveLength(20);
    const page = await list('/v2/transcription', 'limit=1000');
    expect(page.items).toHaveLength(50);
    expect(new URL(page.current).searchParams.get('limit')).toBe('50');
  });

  it('points every link at /v2/transcription with only status, offset and limit', async () => {
    const page = await list(
      '/v2/pre-recorded',
      'status=done&status=error&custom_metadata[team]=sales&after_date=2020-01-01T00:00:00Z&offset=1&limit=2',
    );
    const first = new URL(page.first);
    const next = new URL(page.next ?? '');
    expect(`${next.origin}${next.pathname}`).toBe(`${sim.url}/v2/transcription`);
    expect([...next.searchParams.keys()]).toEqual(['status', 'status', 'offset', 'limit']);
    expect(next.searchParams.getAll('status')).toEqual(['done', 'error']);
    expect(next.searchParams.get('offset')).toBe('3');
    expect(first.searchParams.get('offset')).toBe('0');
    expect(new URL(page.current).searchParams.get('offset')).toBe('1');
  });

  it('sets next to null exactly when the page reaches the end', async () => {
    const total = sim.data.all().filter((r) => r['kind'] === 'live').length;
    expect((await list('/v2/live', `offset=${total - 5}&limit=5`)).next).toBeNull();
    expect((await list('/v2/live', `offset=${total - 6}&limit=5`)).next).not.toBeNull();
    const past = await list('/v2/live', `offset=${total + 10}`);
    expect(past.items).toEqual([]);
    expect(past.next).toBeNull();
  });

  it('filters status given as repeated keys, status[] and a comma list', async () => {
    const want = expected((r) => r['status'] === 'queued' || r['status'] === 'error');
    for (const query of [
      'status=queued&status=error',
      'status[]=queued&status[]=error',
      'status=queued,error',
    ]) {
      expect(ids(await listAll('/v2/transcription', query)), query).toEqual(want);
    }
  });

  it('filters by UTC day, and by before_date and after_date exclusively', async () => {
    const sample = sim.data.all()[10]!;
    const at = String(sample['created_at']);
    const day = at.slice(0, 10);
    expect(ids(await listAll('/v2/transcription', `date=${day}`))).toEqual(
      expected((r) => String(r['created_at']).startsWith(day)),
    );
    expect(ids(await listAll('/v2/transcription', `before_date=${at}`))).toEqual(
      expected((r) => String(r['created_at']) < at),
    );
    expect(ids(await listAll('/v2/transcription', `after_date=${at}`))).toEqual(
      expected((r) => String(r['created_at']) > at),
    );
  });

  it('filters custom_metadata given as JSON or brackets, comparing values as text', async () => {
    const metadata = (r: JobRecord) => (r['custom_metadata'] ?? {}) as Obj;
    const sales = expected((r) => metadata(r)['team'] === 'sales');
    expect(sales.length).toBeGreaterThan(0);
    expect(
      ids(await listAll('/v2/transcription', `custom_metadata=${encodeURIComponent('{"team":"sales"}')}`)),
    ).toEqual(sales);
    expect(ids(await listAll('/v2/transcription', 'custom_metadata[team]=sales'))).toEqual(sales);
    const both = expected((r) => metadata(r)['team'] === 'sales' && metadata(r)['priority'] === 2);
    expect(
      ids(await listAll('/v2/transcription', 'custom_metadata[team]=sales&custom_metadata[priority]=2')),
    ).toEqual(both);
  });
});

describe('the simulator data API', () => {
  it('lists an added job at once and a hidden one only after reveal', async () => {
    const visible = sim.data.add({ kind: 'live', status: 'done', utterances: 2, words: 3 });
    const late = sim.data.add({ hidden: true, createdAt: new Date('2026-09-15T12:00:00.000Z') });
    const listed = async () => ids(await listAll('/v2/transcription'));
    expect(await listed()).toContain(visible['id']);
    expect(await listed()).not.toContain(late['id']);
    sim.data.reveal(String(late['id']));
    const after = await listed();
    expect(after).toContain(late['id']);
    expect(after).toEqual(ids(sim.data.all()));
  });

  it('advances a queued job to processing, then done with a result and completed_at', async () => {
    const job = sim.data.add({ status: 'queued', utterances: 2, words: 4 });
    const id = String(job['id']);
    const served = async () =>
      (await listAll('/v2/pre-recorded', 'status=processing,done')).find((i) => i['id'] === id);
    expect(await served()).toBeUndefined();
    sim.data.advance(id);
    expect((await served())?.['status']).toBe('processing');
    sim.data.advance(id);
    const done = (await served()) ?? {};
    expect(done['status']).toBe('done');
    expect(typeof done['completed_at']).toBe('string');
    const transcription = (done['result'] as Obj)['transcription'] as Obj;
    expect(transcription['utterances']).toHaveLength(2);
    expect(() => sim.data.advance(id)).toThrow(/done/);
  });

  it('fails a job with an error code', () => {
    const job = sim.data.advance(String(sim.data.add()['id']), 'error');
    expect(job['status']).toBe('error');
    expect(typeof job['error_code']).toBe('number');
  });

  it('serves an edit at once, and forgets a deleted job', async () => {
    const target = sim.data.all()[3]!;
    const id = String(target['id']);
    sim.data.edit(id, (r) => {
      r['custom_metadata'] = { team: 'edited-team' };
    });
    const edited = await listAll('/v2/transcription', 'custom_metadata[team]=edited-team');
    expect(ids(edited)).toEqual([id]);
    expect(edited[0]?.['custom_metadata']).toEqual({ team: 'edited-team' });
    expect(sim.data.delete(id)).toBe(true);
    expect(sim.data.get(id)).toBeUndefined();
    expect(await listAll('/v2/transcription', 'custom_metadata[team]=edited-team')).toEqual([]);
    expect(sim.data.delete(id)).toBe(false);
  });

  it('serves given records instead of generated ones, with latency when asked', async () => {
    const record = {
      id: 'a-1',
      kind: 'live',
      status: 'done',
      created_at: '2026-01-01T00:00:00.000Z',
      extra: 1,
    };
    const noId = { kind: 'live', status: 'done', created_at: '2025-01-01T00:00:00.000Z' };
    const own = await startSimulator({ records: [record, noId], apiKey: 'other', latencyMs: 5 });
    try {
      const res = await fetch(`${own.url}/v2/live`, { headers: { 'x-service-key': 'other' } });
      expect(((await res.json()) as Envelope).items).toEqual([record, noId]);
      own.setLatency(0);
      expect(own.log).toHaveLength(1);
      expect(own.data.get('a-1')).toBe(record);
    } finally {
      await own.close();
    }
  });
});

/**
 * The simulator plays the two ways a job leaves the service's list: the account's retention (no job
 * older than it is listed, as of the simulator's clock at each request) and a user's
 * `DELETE /v2/{kind}/{id}` (202, behind the key, 404 for a job the list does not hold).
 */
import { describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../src/simulator/index.js';
import { onCleanup } from '../../helpers/cleanup.js';

const DAY = 86_400_000;

/** 40 jobs over the 40 days before `now`, one a day, on a clock the test moves. */
async function account(): Promise<{ sim: Simulator; clock: { now: number } }> {
  const clock = { now: Date.now() };
  const sim = await startSimulator({
    seed: 41,
    preRecorded: 20,
    live: 20,
    utterancesPerJob: 1,
    wordsPerUtterance: 2,
    from: new Date(clock.now - 40 * DAY),
    to: new Date(clock.now),
    clock: () => clock.now,
  });
  onCleanup(() => sim.close());
  return { sim, clock };
}

function created(record: Record<string, unknown>): number {
  return Date.parse(String(record['created_at']));
}

async function listedIds(sim: Simulator, path: string, query = ''): Promise<string[]> {
  const res = await fetch(`${sim.url}${path}?limit=100${query}`, {
    headers: { 'x-service-key': sim.apiKey },
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { items: { id: string }[]; next: string | null };
  expect(body.next).toBeNull();
  return body.items.map((item) => item.id);
}

function remove(sim: Simulator, path: string, key: string | null = sim.apiKey): Promise<Response> {
  return fetch(`${sim.url}${path}`, {
    method: 'DELETE',
    headers: key === null ? {} : { 'x-service-key': key },
  });
}

describe('the simulator: retention and deletion', () => {
  it('lists no job older than the retention as of its clock, and lists them again without it', async () => {
    const { sim, clock } = await account();
    const all = sim.data.all();
    sim.data.setRetention(10 * DAY);
    const kept = all.filter((r) => created(r) >= clock.now - 10 * DAY).map((r) => r['id']);
    expect(kept.length).toBeGreaterThan(5);
    expect(kept.length).toBeLessThan(all.length - 20);
    expect(await listedIds(sim, '/v2/transcription')).toEqual(kept);
    // An after_date below the retention does not bring older jobs back.
    expect(await listedIds(sim, '/v2/transcription', `&after_date=${new Date(0).toISOString()}`)).toEqual(
      kept,
    );
    // As the clock moves, more jobs age out.
    clock.now += 5 * DAY;
    const later = all.filter((r) => created(r) >= clock.now - 10 * DAY).map((r) => r['id']);
    expect(later.length).toBeLessThan(kept.length);
    expect(await listedIds(sim, '/v2/transcription')).toEqual(later);
    expect(sim.data.count()).toBe(later.length);
    sim.data.setRetention(null);
    expect(await listedIds(sim, '/v2/transcription')).toEqual(all.map((r) => r['id']));
  });

  it('deletes a job on DELETE /v2/{kind}/{id} with 202, behind the key, and 404 for what it does not list', async () => {
    const { sim } = await account();
    const [live, pre, old] = [
      sim.data.all().find((r) => r['kind'] === 'live')!,
      sim.data.all().find((r) => r['kind'] === 'pre-recorded')!,
      sim.data.all().at(-1)!,
    ];
    const [liveId, preId] = [String(live['id']), String(pre['id'])];

    expect((await remove(sim, `/v2/live/${liveId}`, null)).status).toBe(401);
    expect((await remove(sim, `/v2/live/${liveId}`, 'wrong')).status).toBe(401);
    // Another kind's path: not found, and the job stays.
    const wrongKind = await remove(sim, `/v2/pre-recorded/${liveId}`);
    expect(wrongKind.status).toBe(404);
    expect(((await wrongKind.json()) as { statusCode: number }).statusCode).toBe(404);
    expect(await listedIds(sim, '/v2/live')).toContain(liveId);

    const deleted = await remove(sim, `/v2/live/${liveId}`);
    expect(deleted.status).toBe(202);
    expect(await deleted.text()).toBe('');
    expect(await listedIds(sim, '/v2/live')).not.toContain(liveId);
    expect((await remove(sim, `/v2/live/${liveId}`)).status).toBe(404);

    expect((await remove(sim, `/v2/pre-recorded/${preId}`)).status).toBe(202);
    expect(await listedIds(sim, '/v2/pre-recorded')).not.toContain(preId);
    expect((await remove(sim, '/v2/live/no-such-job')).status).toBe(404);

    // A job past the retention is not the account's any more.
    sim.data.setRetention(20 * DAY);
    expect((await remove(sim, `/v2/${String(old['kind'])}/${String(old['id'])}`)).status).toBe(404);
    const log = sim.log.filter((e) => e.method === 'DELETE').map((e) => e.status);
    expect(log).toEqual([401, 401, 404, 202, 404, 202, 404, 404]);
  });
});

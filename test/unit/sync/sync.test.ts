import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../src/simulator/index.js';
import { actualFacts, expectMirror } from '../../helpers/mirror.js';
import { listRequestsSince, syncOnce } from '../../helpers/sync.js';
import { tempDir } from '../../helpers/tmp.js';

let sim: Simulator | undefined;
// History of the last three days, so queued/processing jobs are young enough to be re-checked.
const recent = () => ({ from: new Date(Date.now() - 3 * 86_400_000), to: new Date(Date.now() - 3_600_000) });
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('sync engine', () => {
  it('mirrors every job, status, utterance, word and billing second of a fresh backfill', async () => {
    sim = await startSimulator({ preRecorded: 60, live: 40, seed: 11, limitCap: 15, ...recent() });
    const db = join(tempDir(), 'mirror.duckdb');
    const summary = await syncOnce(sim, db, { sliceJobs: 25, concurrency: 3 });
    expect(summary.outcome).toBe('ok');
    expect(summary.kinds.map((k) => k.inserted).reduce((a, b) => a + b)).toBe(100);
    await expectMirror(db, sim.data.all());
  });

  it('converges after new jobs, status transitions and edits upstream', async () => {
    sim = await startSimulator({ preRecorded: 30, live: 30, seed: 12, ...recent() });
    const db = join(tempDir(), 'incremental.duckdb');
    await syncOnce(sim, db);
    const pending = sim.data.all().filter((r) => r['status'] === 'queued' || r['status'] === 'processing');
    expect(pending.length).toBeGreaterThan(0);
    for (const job of pending) sim.data.advance(String(job['id']), 'done');
    const done = sim.data.all().find((r) => r['status'] === 'done')!;
    sim.data.edit(String(done['id']), (r) => {
      r['custom_metadata'] = { team: 'edited' };
    });
    sim.data.add({ kind: 'live', status: 'done', createdAt: new Date(Date.now() - 1_000) });
    sim.data.add({ kind: 'pre-recorded', status: 'queued', createdAt: new Date(Date.now() - 1_000) });
    const summary = await syncOnce(sim, db);
    expect(summary.outcome).toBe('ok');
    await expectMirror(db, sim.data.all());
    const rechecked = summary.kinds.reduce((n, k) => n + k.pendingRechecked, 0);
    expect(rechecked).toBeGreaterThan(0);
  });

  it('picks up a late-visible job created inside the lookback', async () => {
    sim = await startSimulator({ preRecorded: 20, live: 20, seed: 13, ...recent() });
    const db = join(tempDir(), 'late.duckdb');
    const late = sim.data.add({
      kind: 'pre-recorded',
      status: 'done',
      createdAt: new Date(Date.now() - 60_000),
      hidden: true,
    });
    await syncOnce(sim, db);
    expect((await actualFacts(db)).jobs[String(late['id'])]).toBeUndefined();
    sim.data.reveal(String(late['id']));
    await syncOnce(sim, db);
    await expectMirror(db, sim.data.all());
  });

  it('skips no surviving job when jobs are deleted while a window is walked', async () => {
    sim = await startSimulator({ preRecorded: 80, live: 2, seed: 14, latencyMs: 30, ...recent() });
    const simulator = sim;
    const db = join(tempDir(), 'deletions.duckdb');
    const newest = simulator.data
      .all()
      .filter((r) => r['kind'] === 'pre-recorded')
      .slice(0, 10);
    const start = simulator.log.length;
    let deleted = 0;
    // Delete jobs from the part already walked while later pages are still to come.
    const chaos = setInterval(() => {
      const listed = simulator.log.slice(start).filter((e) => e.path === '/v2/pre-recorded').length;
      if (listed >= 2 && deleted < newest.length) simulator.data.delete(String(newest[deleted++]!['id']));
    }, 5);
    try {
      const summary = await syncOnce(simulator, db, {
        kinds: ['pre-recorded'],
        concurrency: 1,
        pageSize: 10,
        sliceJobs: 1_000,
      });
      expect(summary.outcome).toBe('ok');
      expect(summary.kinds[0]?.restarts).toBeGreaterThan(0);
    } finally {
      clearInterval(chaos);
    }
    expect(deleted).toBeGreaterThan(0);
    const actual = await actualFacts(db);
    for (const job of simulator.data.all().filter((r) => r['kind'] === 'pre-recorded')) {
      expect(actual.jobs[String(job['id'])], `job ${String(job['id'])} was skipped`).toBeDefined();
    }
  });

  it('marks jobs the service no longer lists on --full, and restores one that comes back', async () => {
    sim = await startSimulator({ preRecorded: 20, live: 20, seed: 15, ...recent() });
    const records = sim.data.all().map((r) => structuredClone(r));
    const db = join(tempDir(), 'full.duckdb');
    await syncOnce(sim, db);
    const gone = records
      .filter((r) => r['kind'] === 'live')
      .slice(0, 3)
      .map((r) => String(r['id']));
    for (const id of gone) sim.data.delete(id);
    const incremental = await syncOnce(sim, db);
    expect(incremental.kinds.reduce((n, k) => n + k.deleted, 0)).toBe(0);
    const full = await syncOnce(sim, db, { full: true });
    expect(full.kinds.find((k) => k.kind === 'live')?.deleted).toBe(3);
    await expectMirror(db, sim.data.all());
    await sim.close();
    sim = await startSimulator({ records });
    const restored = await syncOnce(sim, db, { full: true });
    expect(restored.kinds.reduce((n, k) => n + k.restored, 0)).toBe(3);
    await expectMirror(db, sim.data.all());
  });

  it('makes about one request per kind when nothing changed', async () => {
    sim = await startSimulator({ preRecorded: 50, live: 50, seed: 16, ...recent() });
    const db = join(tempDir(), 'idle.duckdb');
    await syncOnce(sim, db);
    const pendingJobs = sim.data
      .all()
      .filter((r) => r['status'] === 'queued' || r['status'] === 'processing').length;
    const before = sim.log.length;
    const summary = await syncOnce(sim, db);
    expect(summary.kinds.every((k) => k.inserted === 0 && k.updated === 0)).toBe(true);
    // One window request per kind, plus one re-check per pending job (fewer when timestamps repeat).
    expect(listRequestsSince(sim, before)).toBeLessThanOrEqual(2 + pendingJobs);
  });
});

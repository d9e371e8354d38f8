/**
 * A sync from the service into the file: a fresh back-fill, convergence after upstream changes and
 * an idle run over HTTP against the simulator; the engine's own cases (a late-visible job,
 * deletions during a walk, --full marking and restoring) over an in-memory listing of the
 * simulator's account (test/helpers/listing-fake.ts, test/helpers/account-data.ts).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../src/simulator/index.js';
import { accountData } from '../../helpers/account-data.js';
import { backfilledCopies } from '../../helpers/backfilled.js';
import { onCleanup } from '../../helpers/cleanup.js';
import { FakeListing, syncFake } from '../../helpers/listing-fake.js';
import { migratedDb } from '../../helpers/migrated-db.js';
import { actualFacts, expectMirror } from '../../helpers/mirror.js';
import { listRequestsSince, syncOnce } from '../../helpers/sync.js';
import { tempDir } from '../../helpers/tmp.js';

let sim: Simulator | undefined;
// History of the last three days, so queued/processing jobs are young enough to be re-checked, of
// small jobs (three utterances of four words).
const recent = () => ({
  from: new Date(Date.now() - 3 * 86_400_000),
  to: new Date(Date.now() - 3_600_000),
  utterancesPerJob: 3,
  wordsPerUtterance: 4,
});
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/**
 * 15 jobs of each kind, the same records at every start (the dates are fixed when the file loads):
 * the account of the tests that begin with its back-fill, made once for them
 * (test/helpers/backfilled.ts).
 */
const ACCOUNT = { preRecorded: 15, live: 15, seed: 12, ...recent() };
const backfilledAccount = backfilledCopies(
  async () => {
    const simulator = await startSimulator(ACCOUNT);
    onCleanup(() => simulator.close());
    return simulator;
  },
  (simulator, db) => syncOnce(simulator, db),
);

describe('sync engine', () => {
  it('mirrors every job, status, utterance, word and billing second of a fresh backfill', async () => {
    // Pages of at most 5 and slices of 10: each kind walks several slices in parallel.
    sim = await startSimulator({ preRecorded: 24, live: 16, seed: 11, limitCap: 5, ...recent() });
    const db = join(tempDir(), 'mirror.duckdb');
    const summary = await syncOnce(sim, db, { sliceJobs: 10, concurrency: 3 });
    expect(summary.outcome).toBe('ok');
    expect(summary.kinds.map((k) => k.inserted).reduce((a, b) => a + b)).toBe(40);
    await expectMirror(db, sim.data.all());
  });

  it('converges after new jobs, status transitions and edits upstream', async () => {
    const { simulator, db } = await backfilledAccount('incremental.duckdb');
    const pending = simulator.data
      .all()
      .filter((r) => r['status'] === 'queued' || r['status'] === 'processing');
    expect(pending.length).toBeGreaterThan(0);
    for (const job of pending) simulator.data.advance(String(job['id']), 'done');
    const done = simulator.data.all().find((r) => r['status'] === 'done')!;
    simulator.data.edit(String(done['id']), (r) => {
      r['custom_metadata'] = { team: 'edited' };
    });
    simulator.data.add({ kind: 'live', status: 'done', createdAt: new Date(Date.now() - 1_000) });
    simulator.data.add({ kind: 'pre-recorded', status: 'queued', createdAt: new Date(Date.now() - 1_000) });
    const summary = await syncOnce(simulator, db);
    expect(summary.outcome).toBe('ok');
    await expectMirror(db, simulator.data.all());
    const rechecked = summary.kinds.reduce((n, k) => n + k.pendingRechecked, 0);
    expect(rechecked).toBeGreaterThan(0);
  });

  it('picks up a late-visible job created inside the lookback', async () => {
    const data = accountData({ preRecorded: 10, live: 0, seed: 13, ...recent() });
    const source = new FakeListing(() => data.all());
    const db = await migratedDb('late.duckdb');
    const preRecorded = { kinds: ['pre-recorded'] as const };
    const late = data.add({
      kind: 'pre-recorded',
      status: 'done',
      createdAt: new Date(Date.now() - 60_000),
      hidden: true,
    });
    await syncFake(source, db, preRecorded);
    expect((await actualFacts(db)).jobs[String(late['id'])]).toBeUndefined();
    data.reveal(String(late['id']));
    await syncFake(source, db, preRecorded);
    await expectMirror(db, data.all());
  });

  it('skips no surviving job when jobs are deleted while a window is walked', async () => {
    // Jobs of one utterance of one word: the walk lists jobs, whatever their transcripts hold.
    const data = accountData({
      preRecorded: 80,
      live: 2,
      seed: 14,
      ...recent(),
      utterancesPerJob: 1,
      wordsPerUtterance: 1,
    });
    const newest = data
      .all()
      .filter((r) => r['kind'] === 'pre-recorded')
      .slice(0, 10);
    let listed = 0;
    let deleted = 0;
    // From the second page on, a job of the part already walked goes before each page is served.
    const source = new FakeListing(() => data.all(), {
      beforePage: (list) => {
        if (list !== 'pre-recorded') return;
        listed += 1;
        if (listed >= 2 && deleted < newest.length) data.delete(String(newest[deleted++]!['id']));
      },
    });
    const db = await migratedDb('deletions.duckdb');
    const summary = await syncFake(source, db, {
      kinds: ['pre-recorded'],
      concurrency: 1,
      pageSize: 10,
      sliceJobs: 1_000,
    });
    expect(summary.outcome).toBe('ok');
    expect(summary.kinds[0]?.restarts).toBeGreaterThan(0);
    expect(deleted).toBeGreaterThan(0);
    const actual = await actualFacts(db);
    for (const job of data.all().filter((r) => r['kind'] === 'pre-recorded')) {
      expect(actual.jobs[String(job['id'])], `job ${String(job['id'])} was skipped`).toBeDefined();
    }
  });

  it('marks jobs the service no longer lists on --full, and restores one that comes back', async () => {
    const data = accountData({ preRecorded: 0, live: 10, seed: 15, ...recent() });
    const records = data.all().map((r) => structuredClone(r));
    const source = new FakeListing(() => data.all());
    const db = await migratedDb('full.duckdb');
    const live = { kinds: ['live'] as const };
    await syncFake(source, db, live);
    const gone = records.slice(0, 3).map((r) => String(r['id']));
    for (const id of gone) data.delete(id);
    const incremental = await syncFake(source, db, live);
    expect(incremental.kinds.reduce((n, k) => n + k.deleted, 0)).toBe(0);
    const full = await syncFake(source, db, { ...live, full: true });
    expect(full.kinds.find((k) => k.kind === 'live')?.deleted).toBe(3);
    await expectMirror(db, data.all());
    // The service lists them again.
    source.records = records;
    const restored = await syncFake(source, db, { ...live, full: true });
    expect(restored.kinds.reduce((n, k) => n + k.restored, 0)).toBe(3);
    await expectMirror(db, records);
  });

  it('makes about one request per kind when nothing changed', async () => {
    const { simulator, db } = await backfilledAccount('idle.duckdb');
    const pendingJobs = simulator.data
      .all()
      .filter((r) => r['status'] === 'queued' || r['status'] === 'processing').length;
    const before = simulator.log.length;
    // Pages of 5: a walk of every job would take three pages a kind.
    const summary = await syncOnce(simulator, db, { pageSize: 5 });
    expect(summary.kinds.every((k) => k.inserted === 0 && k.updated === 0)).toBe(true);
    // One window request per kind, plus one re-check per pending job (fewer when timestamps repeat).
    expect(listRequestsSince(simulator, before)).toBeLessThanOrEqual(2 + pendingJobs);
  });
});

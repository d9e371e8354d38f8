/**
 * Pages that contradict themselves: empty pages and short pages that link on, a total
 * that shrinks under the walk. What counts as a contradiction, then each met once (asked again, the
 * mirror exact) and persisting (the walk fails by name, nothing marked deleted), over HTTP against
 * the simulator. The other hostile listings are hostile-listings.test.ts.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { anomalyOf } from '../../../src/extract/page-anomalies.js';
import type { FaultKind, Simulator } from '../../../src/simulator/index.js';
import { backfilledCopies } from '../../helpers/backfilled.js';
import {
  deletedCount,
  injectAfter,
  preRecordedOnly,
  recent,
  setOnRequest,
  start,
} from '../../helpers/hostile.js';
import { migratedDb } from '../../helpers/migrated-db.js';
import { actualFacts, expectMirror, type MirrorFacts } from '../../helpers/mirror.js';
import { syncOnce } from '../../helpers/sync.js';

describe('what counts as a contradiction', () => {
  const page = (offset: number, limit: number, items: number, next: number | null, nextLimit?: number) => ({
    offset,
    limit,
    ids: Array.from({ length: items }, (_, i) => String(i)),
    next: next === null ? null : { offset: next, limit: nextLimit },
  });

  it('names empty and short pages that link past what they served, and lists that end early', () => {
    expect(anomalyOf(page(0, 20, 0, 20), 0)).toMatch(/empty page/);
    expect(anomalyOf(page(0, 20, 10, 20), 0)).toMatch(/fewer than the 20/);
    expect(anomalyOf(page(19, 21, 1, null), 40)).toMatch(/ended after 20 items .* at least 40/);
  });

  it('accepts a last page, a served limit lower than asked, and a cap whose next goes on after the items', () => {
    expect(anomalyOf(page(40, 20, 5, null), 41)).toBeUndefined();
    expect(anomalyOf(page(0, 21, 20, 20, 20), 0)).toBeUndefined();
    expect(anomalyOf(page(0, 101, 100, 100, 101), 0)).toBeUndefined();
  });
});

describe('pages that contradict themselves', () => {
  // The account of the walks below: 30 jobs in one window for the whole file, so every test's
  // simulator serves the same records, walked in pages of 5 (slices of 20). Their back-fill runs
  // once; each test gets a copy of its file.
  const account = { preRecorded: 30, live: 0, limitCap: 5, ...recent() };
  const paging = { ...preRecordedOnly, pageSize: 5 };
  const backfilled = backfilledCopies(
    () => start(account),
    async (s, db) => {
      const summary = await syncOnce(s, db, paging);
      expect(existsSync(`${db}.wal`)).toBe(false);
      await expectMirror(db, s.data.all());
      return summary;
    },
  );
  let facts: Promise<MirrorFacts> | undefined;

  /** A simulator of `account`, a copy of the file its back-fill left, and what that holds. */
  async function mirrored(): Promise<{ s: Simulator; db: string; facts: MirrorFacts }> {
    const { simulator: s, db } = await backfilled('glitch.duckdb');
    // Every copy holds what the back-fill left: read from the first, before its test changes it.
    facts ??= actualFacts(db);
    return { s, db, facts: await facts };
  }

  for (const fault of ['empty-page', 'short-page', 'shrink-total'] as const) {
    it(`a ${fault} met once is asked again and a --full run stays exact`, async () => {
      const { s, db } = await mirrored();
      // Planning takes 4 requests (the first page at one item, again at 5, two probes); the 5th
      // opens the oldest slice (the 10 jobs past the probe at 20) at offset 0, the 6th goes on from
      // offset 4. 30 jobs are the fewest that keep this walk (a shrink-total needs that 2nd page).
      injectAfter(s, fault === 'shrink-total' ? 5 : 4, fault);
      const summary = await syncOnce(s, db, { ...paging, full: true });
      expect(summary.outcome).toBe('ok');
      // It hit a page of the walk (not a one-item probe), and that page was asked again.
      const hit = s.log.findIndex((e) => e.fault === fault);
      expect(new URLSearchParams(s.log[hit]?.query).get('limit')).not.toBe('1');
      expect(s.log[hit + 1]?.query).toBe(s.log[hit]?.query);
      expect(summary.kinds[0]?.deleted).toBe(0);
      await expectMirror(db, s.data.all());
    });

    it(`a ${fault} that persists fails the walk by name and marks nothing deleted`, async () => {
      const { s, db, facts: before } = await mirrored();
      injectAfter(s, fault === 'shrink-total' ? 5 : 4, ...Array<FaultKind>(8).fill(fault));
      const summary = await syncOnce(s, db, { ...paging, full: true });
      expect(summary.outcome).toBe('failed');
      expect(summary.kinds[0]?.error).toMatch(/contradicted itself/);
      expect(await deletedCount(db)).toBe(0);
      expect((await actualFacts(db)).billing).toEqual(before.billing);
    });
  }

  it("waits the plan's pause before asking a contradicting page again, twice that the second time", async () => {
    const s = await start({ preRecorded: 30, live: 0, limitCap: 20 });
    const db = await migratedDb('pause.duckdb');
    // The plan asks offset 0 twice (one item, then 20) and probes offset 80; the 4th request walks
    // on from offset 19.
    const answered: number[] = [];
    let seen = 0;
    setOnRequest(() => {
      answered.push(performance.now());
      if (++seen === 3) s.faults.inject('empty-page', 'empty-page');
    });
    // Above the 200 ms default, so a pause that never reached the walk shows.
    const pauseMs = 210;
    const summary = await syncOnce(s, db, { ...preRecordedOnly, anomalyPauseMs: pauseMs });
    expect(summary.outcome).toBe('ok');
    const hit = s.log.findIndex((e) => e.fault === 'empty-page');
    expect(new URLSearchParams(s.log[hit]?.query).get('offset')).toBe('19');
    expect(s.log[hit + 2]?.query).toBe(s.log[hit]?.query);
    expect(s.log[hit + 2]?.fault).toBeUndefined();
    const gap = (i: number) => (answered[i + 1] ?? 0) - (answered[i] ?? 0);
    expect(gap(hit)).toBeGreaterThanOrEqual(pauseMs - 1);
    expect(gap(hit + 1)).toBeGreaterThanOrEqual(2 * pauseMs - 1);
    await expectMirror(db, s.data.all());
  });

  it('a --full run whose walk met a contradiction, even one cleared, marks nothing deleted; the next one does', async () => {
    const { s, db } = await mirrored();
    for (const record of s.data.all().slice(0, 3)) s.data.delete(String(record['id']));
    injectAfter(s, 4, 'empty-page');
    const glitched = await syncOnce(s, db, { ...paging, full: true });
    expect(glitched.outcome).toBe('ok');
    expect(glitched.kinds[0]?.deleted).toBe(0);
    expect(await deletedCount(db)).toBe(0);
    const clean = await syncOnce(s, db, { ...paging, full: true });
    expect(clean.kinds[0]?.deleted).toBe(3);
    await expectMirror(db, s.data.all());
  });

  it('a first back-fill whose first page is empty with a next link fails, and the next run stores everything', async () => {
    const s = await start({ preRecorded: 25, live: 0, limitCap: 20 });
    const db = await migratedDb('backfill.duckdb');
    s.faults.inject('empty-page', 'empty-page', 'empty-page');
    const failed = await syncOnce(s, db, preRecordedOnly);
    expect(failed.outcome).toBe('failed');
    expect(failed.kinds[0]?.error).toMatch(/empty page with a next link/);
    const summary = await syncOnce(s, db, preRecordedOnly);
    expect(summary.outcome).toBe('ok');
    await expectMirror(db, s.data.all());
  });
});

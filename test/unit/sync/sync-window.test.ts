/**
 * `sync --full --window 7d`: a reconcile of the recent window walks and judges only jobs created in
 * it; the whole-history reconcile still finds a deletion outside it. The engine's runs go over an
 * in-memory listing of the simulator's account (test/helpers/listing-fake.ts); the flags through
 * the CLI.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SimulatorData } from '../../../src/simulator/index.js';
import { openReadOnly, openWriter } from '../../../src/store/open-file.js';
import { accountData } from '../../helpers/account-data.js';
import { backfilledCopies } from '../../helpers/backfilled.js';
import { runMain } from '../../helpers/cli.js';
import { FakeListing, syncFake } from '../../helpers/listing-fake.js';
import { tempDir } from '../../helpers/tmp.js';

const DAY = 86_400_000;
const WEEK = 7 * DAY;

/** 30 jobs over the 30 days before the file started: about 7 in the last week. */
const HISTORY = {
  seed: 17,
  preRecorded: 18,
  live: 12,
  utterancesPerJob: 2,
  wordsPerUtterance: 3,
  from: new Date(Date.now() - 30 * DAY),
  to: new Date(Date.now() - 60_000),
};

/** The account of HISTORY and a listing of it. */
interface Account {
  readonly data: SimulatorData;
  readonly listing: FakeListing;
}

async function history(): Promise<Account> {
  const data = accountData(HISTORY);
  return { data, listing: new FakeListing(() => data.all()) };
}

/** The first (incremental) run over HISTORY, made once for the tests that begin with it. */
const backfilledHistory = backfilledCopies(history, (account, db) => syncFake(account.listing, db));

function createdMs(record: Record<string, unknown>): number {
  return Date.parse(String(record['created_at']));
}

async function deletedIds(db: string): Promise<string[]> {
  const file = await openReadOnly(db);
  try {
    const rows = await file.all<{ id: string }>(
      'SELECT id FROM jobs WHERE deleted_at IS NOT NULL ORDER BY id',
    );
    return rows.map((r) => r.id);
  } finally {
    await file.close();
  }
}

describe('reconcile of the recent window', () => {
  it('walks and marks deleted only jobs created in the window; the whole-history run finds the older deletion', async () => {
    const { simulator: s, db } = await backfilledHistory('window.duckdb');
    const all = s.data.all() as unknown as Record<string, unknown>[];
    const recent = all.filter((r) => createdMs(r) > Date.now() - WEEK + DAY);
    const old = all.filter((r) => createdMs(r) < Date.now() - 2 * WEEK);
    expect(recent.length).toBeGreaterThan(2);
    const goneRecent = String(recent[1]?.['id']);
    const goneOld = String(old[0]?.['id']);
    s.data.delete(goneRecent);
    s.data.delete(goneOld);
    const inWindow = s.data.all().filter((r) => createdMs(r as Record<string, unknown>) >= Date.now() - WEEK);

    const windowed = await syncFake(s.listing, db, { full: true, reconcileWindow: WEEK });
    expect(windowed.outcome).toBe('ok');
    const fetched = windowed.kinds.reduce((n, k) => n + k.jobsFetched, 0);
    // Only the window was walked (plus the boundary job a slice may repeat), not the 28 jobs.
    expect(fetched).toBeGreaterThanOrEqual(inWindow.length);
    expect(fetched).toBeLessThan(inWindow.length + 5);
    expect(windowed.kinds.reduce((n, k) => n + k.deleted, 0)).toBe(1);
    expect(windowed.kinds.every((k) => k.windowAfter !== null)).toBe(true);
    expect(await deletedIds(db)).toEqual([goneRecent]);

    const whole = await syncFake(s.listing, db, { full: true });
    expect(whole.kinds.reduce((n, k) => n + k.deleted, 0)).toBe(1);
    expect(whole.kinds.reduce((n, k) => n + k.jobsFetched, 0)).toBeGreaterThanOrEqual(all.length - 2);
    expect(await deletedIds(db)).toEqual([goneRecent, goneOld].sort());

    // Each run is named for what it walked, in its summary and in sync_runs (`runs`).
    expect(windowed.kinds.map((k) => k.mode)).toEqual(['recent', 'recent']);
    expect(whole.kinds.map((k) => k.mode)).toEqual(['full', 'full']);
    const runs = await runMain(['runs', '--json', '--kind', 'live', '--db', db]);
    expect(runs.code, runs.stderr).toBe(0);
    const modes = (JSON.parse(runs.stdout) as { mode: string }[]).map((r) => r.mode);
    expect(modes).toEqual(['full', 'recent', 'incremental']);
  });

  it('a windowed reconcile of a file never synced walks the whole history and is recorded as full', async () => {
    const s = await history();
    const db = join(tempDir(), 'first.duckdb');
    const first = await syncFake(s.listing, db, { full: true, reconcileWindow: WEEK });
    expect(first.kinds.map((k) => [k.mode, k.windowAfter])).toEqual([
      ['full', null],
      ['full', null],
    ]);
  });

  it('reads the reconciles a file of an earlier release recorded as full by what they walked', async () => {
    const db = join(tempDir(), 'earlier.duckdb');
    const earlier = await openWriter(db, { migrations: [1, 2, 100, 101, 102] });
    const row = (run: string, mode: string, after: string | null) =>
      earlier.run(
        `INSERT INTO sync_runs (run_id, kind, mode, window_after, window_before, started_at, finished_at, outcome)
         VALUES ($run, 'live', $mode, $after::TIMESTAMPTZ, now(), now(), now(), 'ok')`,
        { run, mode, after },
      );
    await row('a', 'full', '2026-01-01T00:00:00Z');
    await row('b', 'full', null);
    await row('c', 'incremental', '2026-01-01T00:00:00Z');
    await earlier.close();
    await (await openWriter(db)).close();
    const file = await openReadOnly(db);
    const modes = await file.all<{ run_id: string; mode: string }>(
      'SELECT run_id, mode FROM sync_runs ORDER BY run_id',
    );
    await file.close();
    expect(modes.map((r) => [r.run_id, r.mode])).toEqual([
      ['a', 'recent'],
      ['b', 'full'],
      ['c', 'incremental'],
    ]);
  });

  it('also covers the gap since the last run when that is older than the window', async () => {
    const { simulator: s, db } = await backfilledHistory('gap.duckdb');
    // The last run was 10 days ago: its watermark says so.
    const file = await openWriter(db);
    const tenDaysAgo = new Date(Date.now() - 10 * DAY).toISOString();
    await file.run(
      "UPDATE checkpoints SET state = json_merge_patch(state, json_object('watermark', $w::VARCHAR))",
      {
        w: tenDaysAgo,
      },
    );
    await file.close();
    const late = s.data.add({ kind: 'live', status: 'done', createdAt: new Date(Date.now() - 9 * DAY) });
    const run = await syncFake(s.listing, db, { full: true, reconcileWindow: WEEK });
    expect(run.kinds.reduce((n, k) => n + k.inserted, 0)).toBe(1);
    const check = await openReadOnly(db);
    const rows = await check.all<{ n: number }>('SELECT count(*)::INTEGER AS n FROM jobs WHERE id = $id', {
      id: String(late['id']),
    });
    await check.close();
    expect(rows[0]?.n).toBe(1);
  });

  it('re-checks the pending jobs older than the window, as every run does', async () => {
    const s = await history();
    const waiting = s.data.add({ kind: 'live', status: 'queued', createdAt: new Date(Date.now() - 3 * DAY) });
    const db = join(tempDir(), 'pending.duckdb');
    expect((await syncFake(s.listing, db)).outcome).toBe('ok');
    s.data.advance(String(waiting['id']), 'done');
    const run = await syncFake(s.listing, db, { full: true, reconcileWindow: DAY });
    expect(run.kinds.map((k) => k.mode)).toEqual(['recent', 'recent']);
    expect(run.kinds.reduce((n, k) => n + k.pendingRechecked, 0)).toBeGreaterThanOrEqual(1);
    const check = await openReadOnly(db);
    const rows = await check.all<{ status: string }>('SELECT status FROM jobs WHERE id = $id', {
      id: String(waiting['id']),
    });
    await check.close();
    expect(rows).toEqual([{ status: 'done' }]);
  });

  it('refuses --window without --full, and a window without a unit', async () => {
    const env = {
      TSYNC_API_KEY: 'k',
      TSYNC_BASE_URL: 'http://127.0.0.1:9',
      TSYNC_DB: join(tempDir(), 'x.duckdb'),
    };
    const alone = await runMain(['sync', '--window', '7d'], env);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--window');
    expect(alone.stderr).toContain('--full');
    const bare = await runMain(['sync', '--full', '--window', '7'], env);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('7d');
  });
});

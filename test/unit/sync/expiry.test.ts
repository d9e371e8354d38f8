/**
 * Expiry is not deletion: jobs the service stops listing because they aged past the account's
 * retention stay in every view and report (`expired_at`), jobs a user deleted are marked
 * `deleted_at`, the deletion guard counts only the latter, and a `--full` walk starts at the
 * retention horizon.
 */
import { describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../src/simulator/index.js';
import { openReadOnly } from '../../../src/store/open-file.js';
import { backfilledCopies } from '../../helpers/backfilled.js';
import { onCleanup } from '../../helpers/cleanup.js';
import { runMain, shownLines } from '../../helpers/cli.js';
import { syncOnce } from '../../helpers/sync.js';

const DAY = 86_400_000;
const YEAR = 365 * DAY;
const START = Date.now();

/**
 * 390 jobs over the 13 months before the tests started, a job a day or so; the simulator keeps
 * them all until a test gives it the account's retention.
 */
const HISTORY = {
  seed: 23,
  preRecorded: 200,
  live: 190,
  utterancesPerJob: 1,
  wordsPerUtterance: 2,
  from: new Date(START - 395 * DAY),
  to: new Date(START - 60_000),
};

async function history(): Promise<Simulator> {
  const simulator = await startSimulator(HISTORY);
  onCleanup(() => simulator.close());
  return simulator;
}

/**
 * The first sync, before the service forgot anything, in pages of the simulator's cap of 100: no
 * test here is about that sync's pages, and each page of a back-fill costs slice probes and a load.
 */
const backfilled = backfilledCopies(history, (simulator, db) => syncOnce(simulator, db, { pageSize: 100 }));

function env(sim: Simulator): Record<string, string> {
  return {
    TSYNC_BASE_URL: sim.url,
    TSYNC_API_KEY: sim.apiKey,
    TSYNC_PAGE_SIZE: '50',
    TSYNC_RATE_LIMIT: '10000',
  };
}

async function rows<T>(db: string, sql: string): Promise<T[]> {
  const file = await openReadOnly(db);
  try {
    return await file.all<T>(sql);
  } finally {
    await file.close();
  }
}

type Marks = { expired: number; deleted: number };
async function marks(db: string): Promise<Marks> {
  const [row] = await rows<Marks>(
    db,
    `SELECT count(*) FILTER (WHERE expired_at IS NOT NULL)::INTEGER AS expired,
            count(*) FILTER (WHERE deleted_at IS NOT NULL)::INTEGER AS deleted FROM jobs`,
  );
  return row!;
}

/** `report billing` by month over the whole history, as JSON: its figures, not its `as_of`. */
async function billing(db: string): Promise<{ rows: unknown[] }> {
  const from = new Date(START - 400 * DAY).toISOString().slice(0, 7);
  const out = await runMain([
    'report',
    'billing',
    '--db',
    db,
    '--by',
    'month',
    '--from',
    from,
    '--format',
    'json',
  ]);
  expect(out.code).toBe(0);
  const { as_of: _asOf, ...figures } = JSON.parse(out.stdout) as { as_of: string; rows: unknown[] };
  return figures;
}

describe('expiry is not deletion', () => {
  it('keeps the jobs the retention dropped in every report: none deleted, counted expired', async () => {
    const { simulator: sim, db } = await backfilled('expired.duckdb');
    const before = await billing(db);
    // Every month of the 13, both kinds.
    expect(before.rows.length).toBeGreaterThanOrEqual(26);
    const stored = sim.data.count();
    sim.data.setRetention(YEAR);
    const dropped = stored - sim.data.count();
    expect(dropped).toBeGreaterThan(20);

    const full = await runMain(['sync', '--full', '--db', db], env(sim));
    expect(full.code, full.stderr).toBe(0);
    expect(full.stderr).toMatch(/\d+ expired \(past the retention, kept\)/);
    expect(await marks(db)).toEqual({ expired: dropped, deleted: 0 });
    expect(await billing(db)).toEqual(before);

    const [run] = await rows<{ deleted: number; expired: number }>(
      db,
      "SELECT sum(deleted)::INTEGER AS deleted, sum(expired)::INTEGER AS expired FROM sync_runs WHERE mode = 'full'",
    );
    expect(run).toEqual({ deleted: 0, expired: dropped });
    const status = await runMain(['status', '--db', db, '--json']);
    const kinds = JSON.parse(status.stdout) as {
      kind: string;
      jobs: number;
      expired: number;
      deleted: number;
    }[];
    expect(kinds.reduce((n, k) => n + k.expired, 0)).toBe(dropped);
    expect(kinds.reduce((n, k) => n + k.jobs, 0)).toBe(stored);
    const runs = await runMain(['runs', '--db', db, '--json']);
    const listed = JSON.parse(runs.stdout) as { mode: string; expired: number }[];
    expect(listed.filter((r) => r.mode === 'full').reduce((n, r) => n + r.expired, 0)).toBe(dropped);

    // The next reconcile finds nothing new to mark.
    expect((await runMain(['sync', '--full', '--db', db], env(sim))).code).toBe(0);
    expect(await marks(db)).toEqual({ expired: dropped, deleted: 0 });
  });

  it('marks a job deleted inside the horizon deleted, and asks for no page below the horizon', async () => {
    const { simulator: sim, db } = await backfilled('deleted.duckdb');
    sim.data.setRetention(YEAR);
    const recent = sim.data.all().find((r) => r['kind'] === 'live')!;
    const id = String(recent['id']);
    const res = await fetch(`${sim.url}/v2/live/${id}`, {
      method: 'DELETE',
      headers: { 'x-service-key': sim.apiKey },
    });
    expect(res.status).toBe(202);

    const from = sim.log.length;
    const startedAt = Date.now();
    expect((await syncOnce(sim, db, { full: true })).outcome).toBe('ok');
    const deleted = await rows<{ id: string }>(db, 'SELECT id FROM jobs WHERE deleted_at IS NOT NULL');
    expect(deleted.map((r) => r.id)).toEqual([id]);

    // Every list request of the reconcile is bounded below by the horizon (retention plus a day).
    const lists = sim.log.slice(from).filter((e) => e.method === 'GET' && e.path.startsWith('/v2/'));
    expect(lists.length).toBeGreaterThan(0);
    for (const entry of lists) {
      const after = new URLSearchParams(entry.query).get('after_date');
      expect(after, entry.query).not.toBeNull();
      expect(Date.parse(after!)).toBeGreaterThanOrEqual(startedAt - YEAR - DAY - 60_000);
    }
    const windows = await rows<{ window_after: string }>(
      db,
      "SELECT CAST(window_after AS VARCHAR) AS window_after FROM sync_runs WHERE mode = 'full'",
    );
    expect(windows).toHaveLength(2);
    for (const { window_after } of windows) expect(window_after).not.toBeNull();
  });

  it('a --window reconcile marks expired the jobs below the horizon, and leaves those it could not see above it', async () => {
    const { simulator: sim, db } = await backfilled('window.duckdb');
    sim.data.setRetention(YEAR);
    const startedAt = Date.now();
    expect((await syncOnce(sim, db, { full: true, reconcileWindow: DAY })).outcome).toBe('ok');
    const [counts] = await rows<{ below: number; band: number }>(
      db,
      `SELECT count(*) FILTER (WHERE created_at < '${new Date(startedAt - YEAR - DAY).toISOString()}')::INTEGER AS below,
              count(*) FILTER (WHERE created_at >= '${new Date(startedAt - YEAR - DAY).toISOString()}'
                               AND created_at < '${new Date(startedAt - YEAR + DAY).toISOString()}')::INTEGER AS band
       FROM jobs`,
    );
    // Jobs within a day of the retention's edge, some still listed: not walked, so not judged.
    expect(counts!.band).toBeGreaterThan(0);
    expect(await marks(db)).toEqual({ expired: counts!.below, deleted: 0 });
  });

  it('never counts expired jobs against --max-delete-share', async () => {
    const { simulator: sim, db } = await backfilled('guard.duckdb');
    sim.data.setRetention(YEAR);
    // Each kind loses more than the guard's floor of 10 jobs, past any share of 0.
    const summary = await syncOnce(sim, db, { full: true, maxDeleteShare: 0 });
    expect(summary.outcome).toBe('ok');
    for (const kind of summary.kinds) expect(kind.expired).toBeGreaterThan(10);
    expect((await marks(db)).deleted).toBe(0);
  });

  it('counts no expired job as pending: the service no longer lists it, no run can bring it up to date', async () => {
    const { simulator: sim, db } = await backfilled('pending.duckdb');
    sim.data.setRetention(YEAR);
    expect((await runMain(['sync', '--full', '--db', db], env(sim))).code).toBe(0);
    const [stuck] = await rows<{ expired: number; listed: number }>(
      db,
      `SELECT count(*) FILTER (WHERE expired_at IS NOT NULL)::INTEGER AS expired,
              count(*) FILTER (WHERE expired_at IS NULL)::INTEGER AS listed
       FROM jobs WHERE status IN ('queued', 'processing')`,
    );
    // Jobs the account left unfinished, some past the retention.
    expect(stuck!.expired).toBeGreaterThan(0);
    const status = await runMain(['status', '--db', db, '--json']);
    const kinds = JSON.parse(status.stdout) as { pending: number; pending_stale: number }[];
    expect(kinds.reduce((n, k) => n + k.pending + k.pending_stale, 0)).toBe(stuck!.listed);
    // The advice on stderr is about the stale ones still listed, none of the expired.
    const shown = await runMain(['status', '--db', db]);
    const advised = [...shown.stderr.matchAll(/(\d+) (?:pending )?jobs? (?:older|still)/g)];
    expect(advised.reduce((n, m) => n + Number(m[1]), 0)).toBe(
      kinds.reduce((n, k) => n + k.pending_stale, 0),
    );

    // Nor is one asked for again, however long pending jobs are re-checked: no request reaches
    // below the horizon, where only expired jobs lie.
    const from = sim.log.length;
    const startedAt = Date.now();
    const again = await runMain(['sync', '--db', db, '--pending-max-age', '800d'], env(sim));
    expect(again.code, again.stderr).toBe(0);
    const asked = sim.log.slice(from).filter((e) => e.method === 'GET' && e.path.startsWith('/v2/'));
    for (const entry of asked) {
      const after = new URLSearchParams(entry.query).get('after_date');
      expect(Date.parse(after ?? ''), entry.query).toBeGreaterThanOrEqual(startedAt - YEAR - DAY - 60_000);
    }
  });

  it('restores expired jobs listed again, and warns once a run of jobs listed older than the setting', async () => {
    const { simulator: sim, db } = await backfilled('relisted.duckdb');
    // A setting shorter than the account keeps jobs: a reconcile takes the older ones for expired.
    const short = await runMain(['sync', '--full', '--db', db, '--service-retention', '90d'], env(sim));
    expect(short.code, short.stderr).toBe(0);
    const expired = (await marks(db)).expired;
    expect(expired).toBeGreaterThan(250);
    // Set right, the next reconcile lists them again (the account keeps them) and restores them.
    const right = await runMain(['sync', '--full', '--db', db, '--service-retention', '366d'], env(sim));
    expect(right.code, right.stderr).toBe(0);
    const [restored] = await rows<{ restored: number }>(
      db,
      "SELECT restored::INTEGER AS restored FROM sync_runs WHERE mode = 'full' ORDER BY started_at DESC LIMIT 1",
    );
    const stillExpired = (await marks(db)).expired;
    expect(stillExpired).toBeLessThan(40);
    expect(restored!.restored).toBeGreaterThan(0);
    // Jobs below the 366-day horizon were not walked, so still count as expired; the rest came back.
    const [below] = await rows<{ n: number }>(
      db,
      `SELECT count(*)::INTEGER AS n FROM jobs WHERE created_at < '${new Date(START - 366 * DAY).toISOString()}'`,
    );
    expect(stillExpired).toBeLessThanOrEqual(below!.n + 2);

    // A walk below the horizon (a --since run) meets jobs older than the setting: one warning.
    const since = new Date(START - 200 * DAY).toISOString();
    const warned = await runMain(
      ['sync', '--db', db, '--since', since, '--service-retention', '90d'],
      env(sim),
    );
    expect(warned.code, warned.stderr).toBe(0);
    const lines = shownLines(warned.stderr).filter((l) => l.includes('--service-retention 90d'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/older than --service-retention 90d \(and a day\) allows/);
  });
});

/**
 * What a person sees of hostile listings at the command line: one line and the exit code of a kind
 * that cannot sync (the other still syncs), `--since` in the future, and `status` telling pending
 * jobs still re-checked from those past --pending-max-age, those no run re-checked since from those
 * still pending upstream, and counting every quarantined record.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../src/simulator/index.js';
import { openWriter } from '../../../src/store/open-file.js';
import { runMain, shownLines } from '../../helpers/cli.js';
import { loadRecords } from '../../helpers/load.js';
import { migratedDb } from '../../helpers/migrated-db.js';
import { tempDir } from '../../helpers/tmp.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const recent = () => ({ from: new Date(Date.now() - 3 * 86_400_000), to: new Date(Date.now() - 3_600_000) });

interface StatusRow {
  kind: string;
  jobs: number;
  pending: number;
  pending_stale: number;
  quarantined: number;
}

describe('hostile listings at the command line', () => {
  it('a record over --max-record-bytes: exit 1, one line naming the setting, the other kind synced', async () => {
    sim = await startSimulator({
      preRecorded: 2,
      live: 6,
      utterancesPerJob: 2,
      ...recent(),
      recordPadding: { kind: 'pre-recorded', bytes: 1_200_000 },
    });
    const db = await migratedDb('ceiling.duckdb');
    const env = { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey };
    const result = await runMain(
      ['sync', '--db', db, '--max-record-bytes', '1MiB', '--page-bytes', '256KiB'],
      env,
    );
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).not.toMatch(/unexpected error|\n\s+at /);
    const lines = shownLines(result.stderr);
    expect(lines.at(-1)).toMatch(
      /^transcript-sync: a pre-recorded record is larger than .*raise --max-record-bytes/,
    );
    expect(lines).toContainEqual(expect.stringMatching(/^live: ok: 6 jobs/));
    const status = await runMain(['status', '--db', db, '--json']);
    const rows = JSON.parse(status.stdout) as StatusRow[];
    expect(rows.find((r) => r.kind === 'live')?.jobs).toBe(6);
  });

  it('a next link that does not advance fails its kind only: the other kind still syncs', async () => {
    sim = await startSimulator({ preRecorded: 6, live: 6, utterancesPerJob: 2, limitCap: 2, ...recent() });
    const db = await migratedDb('stuck-next.duckdb');
    sim.faults.pick((request) => (request.path.endsWith('/pre-recorded') ? 'next-stuck' : undefined));
    const env = { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey };
    const result = await runMain(['sync', '--db', db], env);
    expect(result.code, result.stderr).toBe(1);
    const lines = shownLines(result.stderr);
    expect(lines).toContainEqual(
      expect.stringMatching(/^pre-recorded: FAILED \(the service's next link does not advance/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^live: ok: 6 jobs/));
    expect(lines.at(-1)).toMatch(
      /^transcript-sync: the service's next link does not advance .*report it upstream$/,
    );
    const status = await runMain(['status', '--db', db, '--json']);
    const rows = JSON.parse(status.stdout) as StatusRow[];
    expect(rows.find((r) => r.kind === 'live')?.jobs).toBe(6);
  });

  it('refuses --since in the future with exit 2 before touching anything', async () => {
    sim = await startSimulator({ preRecorded: 2, live: 2, ...recent() });
    const db = join(tempDir(), 'future.duckdb');
    const env = { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey };
    const result = await runMain(['sync', '--db', db, '--since', '2999-01-01'], env);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/--since: is in the future/);
    expect(sim.log).toHaveLength(0);
  });

  it('refuses --on-delete and --max-delete-share without --full, which alone marks deletions', async () => {
    sim = await startSimulator({ preRecorded: 2, live: 2, ...recent() });
    const db = join(tempDir(), 'not-full.duckdb');
    const env = { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey };
    for (const [flag, value] of [
      ['--on-delete', 'erase'],
      ['--max-delete-share', '0.5'],
    ] as const) {
      const result = await runMain(['sync', '--db', db, flag, value], env);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain(`${flag}: only applies to a reconcile; add --full`);
    }
    expect(sim.log).toHaveLength(0);
    // Set for the worker's reconciles in the environment they share, an incremental run goes on.
    const shared = await runMain(['sync', '--db', db], { ...env, TSYNC_ON_DELETE: 'erase' });
    expect(shared.code, shared.stderr).toBe(0);
    const full = await runMain(['sync', '--db', db, '--full', '--on-delete', 'erase'], env);
    expect(full.code, full.stderr).toBe(0);
  });

  it('status splits pending jobs past --pending-max-age and counts quarantined records of unknown kind', async () => {
    sim = await startSimulator({ preRecorded: 0, live: 0 });
    sim.data.add({
      kind: 'pre-recorded',
      status: 'processing',
      createdAt: new Date(Date.now() - 10 * 86_400_000),
    });
    sim.data.add({ kind: 'pre-recorded', status: 'queued', createdAt: new Date(Date.now() - 3_600_000) });
    const db = await migratedDb('status.duckdb');
    const env = { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey };
    expect((await runMain(['sync', '--db', db], env)).code).toBe(0);
    // A record of a kind this version does not know, as a newer service might list it.
    const database = await openWriter(db);
    try {
      const odd = { id: 'odd-1', kind: 'dubbing', status: 'done', created_at: new Date().toISOString() };
      await loadRecords(database, [odd], new Date());
    } finally {
      await database.close();
    }

    const status = await runMain(['status', '--db', db, '--json']);
    expect(status.code, status.stderr).toBe(0);
    const rows = JSON.parse(status.stdout) as StatusRow[];
    const pre = rows.find((r) => r.kind === 'pre-recorded');
    expect([pre?.pending, pre?.pending_stale]).toEqual([1, 1]);
    expect(rows.find((r) => r.kind === 'unknown')?.quarantined).toBe(1);
    expect(status.stderr).toBe('');
    const table = await runMain(['status', '--db', db]);
    expect(table.stdout).toMatch(/pending_stale/);
    // The sync just listed it, still processing: only the service can move it on.
    expect(table.stderr).toMatch(/^pre-recorded: 1 job still queued or processing upstream since /m);
    expect(table.stderr).not.toMatch(/sync --full/);

    const wider = await runMain(['status', '--db', db, '--json', '--pending-max-age', '30d']);
    const widerPre = (JSON.parse(wider.stdout) as StatusRow[]).find((r) => r.kind === 'pre-recorded');
    expect([widerPre?.pending, widerPre?.pending_stale]).toEqual([2, 0]);
  });

  it('status advises a full run for stale pending jobs no run re-checked, and stops once one has', async () => {
    sim = await startSimulator({ preRecorded: 0, live: 0 });
    const createdAt = Date.now() - 10 * 86_400_000;
    sim.data.add({ kind: 'live', status: 'processing', createdAt: new Date(createdAt) });
    const db = await migratedDb('stale.duckdb');
    const env = { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey };
    expect((await runMain(['sync', '--db', db], env)).code).toBe(0);
    // A max age that the job passed only after that sync had listed it: no run has re-checked it since.
    const maxAge = ['--pending-max-age', `${Date.now() + 1 - createdAt}ms`];
    await new Promise((r) => setTimeout(r, 5));

    const before = await runMain(['status', '--db', db, ...maxAge]);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stderr).toMatch(
      /^live: 1 pending job older than --pending-max-age .*not re-checked lately; run `sync --full`/m,
    );
    expect(before.stderr).not.toMatch(/upstream/);

    // The cure: a full run lists it again, still processing upstream.
    expect((await runMain(['sync', '--db', db, '--full'], env)).code).toBe(0);
    const after = await runMain(['status', '--db', db, ...maxAge]);
    const day = new Date(createdAt).toISOString().slice(0, 10);
    expect(after.stderr).toMatch(
      new RegExp(
        `^live: 1 job still queued or processing upstream since ${day} \\(as last listed at .*Z\\); nothing to do here`,
        'm',
      ),
    );
    expect(after.stderr).not.toMatch(/sync --full/);
  });
});

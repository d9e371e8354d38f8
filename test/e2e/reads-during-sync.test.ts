import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { serveReads } from '../../src/analytics/read/read-server.js';
import type { Command } from '../../src/cli/command.js';
import { command as exportCommand } from '../../src/cli/commands/export.js';
import { command as quarantineCommand } from '../../src/cli/commands/quarantine.js';
import { command as queryCommand } from '../../src/cli/commands/query.js';
import { command as reportCommand } from '../../src/cli/commands/report.js';
import { command as stateCommand } from '../../src/cli/commands/state.js';
import { command as statusCommand } from '../../src/cli/commands/status.js';
import { silentLogger } from '../../src/log.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { openWriter } from '../../src/store/open-file.js';
import { runCommand } from '../helpers/analytics-data.js';
import { type StartedCli, startCli } from '../helpers/cli.js';
import { syncOnce } from '../helpers/sync.js';
import { fileTempDir, tempDir } from '../helpers/tmp.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const JOBS_PER_KIND = 60;
const SECRET = 'reads-during-sync-key-7c1e';

/**
 * A back-fill that takes many seconds: small pages, each answered after `latencyMs`. Resolves once
 * the sync holds the file (its read socket is there) and has committed a first page.
 */
async function slowBackfill(db: string, latencyMs: number): Promise<{ sim: Simulator; sync: StartedCli }> {
  const sim = await startSimulator({
    seed: 18,
    preRecorded: JOBS_PER_KIND,
    live: JOBS_PER_KIND,
    utterancesPerJob: 2,
    wordsPerUtterance: 3,
    apiKey: SECRET,
    latencyMs,
  });
  const sync = startCli(['sync', '--db', db, '--page-size', '5', '--concurrency', '1'], {
    TSYNC_BASE_URL: sim.url,
    TSYNC_API_KEY: SECRET,
  });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && (await countNow(db)) === undefined) await sleep(50);
  return { sim, sync };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The job count a query sees now, or undefined while there is no file or nothing committed. */
async function countNow(db: string): Promise<number | undefined> {
  if (!existsSync(`${db}.sock`)) return undefined;
  const outcome = await runCommand(queryCommand, [
    'SELECT count(*) AS n FROM jobs',
    '--db',
    db,
    '--format',
    'json',
  ]);
  if (outcome.error) return undefined;
  const n = Number((JSON.parse(outcome.stdout) as { n: number }[])[0]?.n);
  return n > 0 ? n : undefined;
}

/** A command on `db` that must not wait for the writer (--lock-wait 0s). */
function whileHeld(command: Command, db: string, argv: readonly string[]) {
  return runCommand(command, [...argv, '--db', db, '--lock-wait', '0s']);
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}

describe('reads while a sync holds the file', () => {
  // One back-fill for the tests that read while it runs (none of them writes): at 24 pages of 500 ms
  // it holds the file for seconds; the last test ends it at full speed.
  const folder = fileTempDir('tsync-reads-');
  const db = join(folder.dir, 'live.duckdb');
  let backfill: { sim: Simulator; sync: StartedCli };
  beforeAll(async () => {
    backfill = await slowBackfill(db, 500);
  });
  afterAll(async () => {
    backfill.sync.child.kill('SIGKILL');
    await backfill.sync.done;
    await backfill.sim.close();
    folder.remove();
  });

  test('query answers within 2 s with the last committed count while a back-fill runs', async () => {
    const seen: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const { value, ms } = await timed(() =>
        whileHeld(queryCommand, db, ['SELECT count(*) AS n FROM jobs', '--format', 'json']),
      );
      expect(value.error).toBeUndefined();
      expect(ms).toBeLessThan(2_000);
      seen.push(Number((JSON.parse(value.stdout) as { n: number }[])[0]?.n));
      await sleep(150);
    }
    // The sync still runs: the counts are commits in progress, never going back.
    expect(backfill.sync.child.exitCode).toBeNull();
    expect(seen.every((n, i) => n > 0 && n < 2 * JOBS_PER_KIND && n >= (seen[i - 1] ?? 0))).toBe(true);
    expect(statSync(`${db}.sock`).mode & 0o777).toBe(0o600);
  });

  test('status, report and export answer too, each from one commit', async () => {
    const status = await whileHeld(statusCommand, db, ['--json']);
    expect(status.error).toBeUndefined();
    const kinds = JSON.parse(status.stdout) as { kind: string; jobs: number }[];
    expect(kinds.reduce((sum, k) => sum + k.jobs, 0)).toBeGreaterThan(0);

    const report = await whileHeld(reportCommand, db, ['status', '--format', 'json']);
    expect(report.error).toBeUndefined();
    const byStatus = JSON.parse(report.stdout) as { jobs: number }[];
    expect(byStatus.reduce((sum, r) => sum + r.jobs, 0)).toBeGreaterThan(0);

    const out = join(tempDir(), 'export');
    const exported = await whileHeld(exportCommand, db, ['--out', out]);
    expect(exported.error).toBeUndefined();
    const exportedJobs = Number(/^jobs\s+(\d+) rows/m.exec(exported.stdout)?.[1]);
    expect(exportedJobs).toBeGreaterThan(0);
    expect(existsSync(join(out, 'jobs'))).toBe(true);
    expect(backfill.sync.child.exitCode).toBeNull();
  });

  test('state show and quarantine list, readers too, answer from the last commit', async () => {
    const state = await whileHeld(stateCommand, db, ['show', '--json']);
    expect(state.error).toBeUndefined();
    const kinds = JSON.parse(state.stdout) as { kind: string; redis: string }[];
    expect(kinds.map((k) => [k.kind, k.redis])).toEqual([
      ['pre-recorded', 'not configured'],
      ['live', 'not configured'],
    ]);

    const quarantined = await whileHeld(quarantineCommand, db, ['list', '--json']);
    expect(quarantined.error).toBeUndefined();
    expect(JSON.parse(quarantined.stdout)).toEqual([]);
    expect(backfill.sync.child.exitCode).toBeNull();
  });

  test('the writer refuses writes, file access, settings and its environment to a reader', async () => {
    const leak = join(tempDir(), 'leak.csv');
    for (const [statement, refusal] of [
      ['DELETE FROM jobs', /would change the database/],
      ["UPDATE jobs SET status = 'done'", /would change the database/],
      ['CREATE TABLE scratch AS SELECT 1', /would change the database/],
      ['CHECKPOINT', /would change the database/],
      [`COPY jobs TO '${leak}'`, /reads or writes files/],
      [`ATTACH '${join(tempDir(), 'x.duckdb')}' AS x`, /reads or writes files/],
      ["SELECT * FROM read_csv('/etc/hostname')", /reads or writes files/],
      ["SET memory_limit = '10GB'", /settings cannot be changed/],
      ["PRAGMA memory_limit = '10GB'", /settings cannot be changed|would change/],
      ['RESET memory_limit', /settings cannot be changed|would change/],
      ["SELECT getenv('TSYNC_API_KEY')", /getenv/],
      ['SELECT 1; DELETE FROM jobs', /would change the database/],
      ['SELECT * FROM range(300000)', /more than 200000 rows/],
      ['INSTALL fts', /reads or writes files/],
      ['LOAD fts', /reads or writes files/],
    ] as const) {
      const outcome = await whileHeld(queryCommand, db, [statement]);
      expect(outcome.code, statement).toBe(2);
      expect(outcome.error?.message, statement).toMatch(refusal);
      expect(outcome.error?.message).not.toContain(SECRET);
    }
    expect(existsSync(leak)).toBe(false);
    expect(backfill.sync.child.exitCode).toBeNull();
  });

  test('the back-fill ends with every job, its read socket and temporary files removed', async () => {
    // The slow pages only had to keep the back-fill going while it was read: end it at full speed.
    backfill.sim.setLatency(0);
    expect((await backfill.sync.done).code).toBe(0);
    expect(existsSync(`${db}.sock`)).toBe(false);
    expect(existsSync(`${db}.tmp`)).toBe(false);
    expect(
      await runCommand(queryCommand, ['SELECT count(*) AS n FROM jobs', '--db', db, '--format', 'csv']),
    ).toMatchObject({
      stdout: `n\n${2 * JOBS_PER_KIND}\n`,
    });
  });
});

describe('the read socket', () => {
  test('a socket left by a killed sync is replaced, and removed when the run ends', async () => {
    const db = join(tempDir(), 'stale.duckdb');
    // A process listening on the path, killed: the socket file stays with nobody behind it.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        "require('node:net').createServer().listen(process.argv[1], () => console.log('ready'))",
        `${db}.sock`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => holder.stdout?.once('data', () => resolve()));
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    expect(statSync(`${db}.sock`).isSocket()).toBe(true);

    sim = await startSimulator({
      seed: 5,
      preRecorded: 5,
      live: 5,
      utterancesPerJob: 1,
      wordsPerUtterance: 2,
    });
    const summary = await syncOnce(sim, db);
    expect(summary.outcome).toBe('ok');
    expect(existsSync(`${db}.sock`)).toBe(false);
    const count = await runCommand(queryCommand, [
      'SELECT count(*) AS n FROM jobs',
      '--db',
      db,
      '--format',
      'csv',
    ]);
    expect(count.stdout).toBe('n\n10\n');
  });

  test('the writer still changes its own settings while it serves reads', async () => {
    const db = await openWriter(join(tempDir(), 'own.duckdb'));
    const reads = await serveReads(db, { logger: silentLogger });
    try {
      await db.run('SET threads = 2');
      expect(await db.all("SELECT current_setting('threads') AS t")).toEqual([{ t: 2 }]);
    } finally {
      await reads.close();
      await db.close();
    }
  });
});

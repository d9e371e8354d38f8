import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { command as query } from '../../../src/cli/commands/query.js';
import { command as report } from '../../../src/cli/commands/report.js';
import { DatabaseError } from '../../../src/errors.js';
import type { JobRecord } from '../../../src/simulator/index.js';
import { projectRoot } from '../../../src/util/paths.js';
import {
  craftJob,
  jsonRows,
  loadedDatabase,
  runCommand,
  smallDataset,
} from '../../helpers/analytics-data.js';

type Row = Record<string, unknown>;

const generated = smallDataset(41, 40);
const records: JobRecord[] = [
  ...generated,
  craftJob(generated, {
    id: 'refund-call',
    kind: 'live',
    createdAt: '2026-10-31T23:59:59.999Z',
    text: 'I want a REFUND of 100% now',
  }),
  craftJob(generated, {
    id: 'refund-deleted',
    kind: 'pre-recorded',
    createdAt: '2026-10-30T08:00:00.000Z',
    text: 'refund please',
  }),
];

const db = loadedDatabase('analytics-query', records, { deleted: ['refund-deleted'] });

function sql(text: string, format = 'json'): Promise<Row[]> {
  return jsonRows(query, [text, '--db', db, '--format', format]);
}

async function jobCount(): Promise<number> {
  return Number((await sql('SELECT count(*) AS n FROM jobs'))[0]?.['n']);
}

describe('query', () => {
  test('runs SELECTs over tables and views and prints JSON, CSV or a table', async () => {
    const rows = await sql("SELECT kind, count(*) AS jobs FROM jobs WHERE kind = 'live' GROUP BY kind");
    expect(rows).toEqual([{ kind: 'live', jobs: records.filter((r) => r['kind'] === 'live').length }]);
    const csv = await runCommand(query, ["SELECT 1 AS a, 'x,y' AS b", '--db', db, '--format', 'csv']);
    expect(csv.stdout).toBe('a,b\n1,"x,y"\n');
    const table = await runCommand(query, [
      'SELECT month, jobs FROM billing_monthly ORDER BY month LIMIT 2',
      '--db',
      db,
    ]);
    expect(table.stdout.split('\n')[0]).toMatch(/^month\s+jobs$/);
  });

  test('timestamps come out as ISO 8601 UTC with milliseconds', async () => {
    const rows = await sql("SELECT created_at, day FROM job_facts WHERE id = 'refund-call'");
    expect(rows).toEqual([{ created_at: '2026-10-31T23:59:59.999Z', day: '2026-10-31' }]);
  });

  test.each([
    'DELETE FROM jobs',
    "UPDATE jobs SET status = 'done'",
    "INSERT INTO jobs (id) VALUES ('x')",
    'DROP VIEW billing_daily',
    'CREATE TABLE scratch AS SELECT * FROM jobs',
  ])('refuses a statement that writes (%s) and leaves the data as it was', async (statement) => {
    const before = await jobCount();
    const outcome = await runCommand(query, [statement, '--db', db]);
    expect(outcome.code).toBe(2);
    expect(outcome.error?.message).toMatch(
      /refused: the statement would change the database, and query is read-only/,
    );
    expect(await jobCount()).toBe(before);
    expect(
      (await sql("SELECT count(*) AS n FROM duckdb_views() WHERE view_name = 'billing_daily'"))[0]?.['n'],
    ).toBe(1);
  });

  test('refuses statements that write or read files, and setting changes', async () => {
    const leak = join(dirname(db), 'leak.csv');
    for (const statement of [
      `COPY jobs TO '${leak}'`,
      `ATTACH '${join(dirname(db), 'other.duckdb')}' AS other`,
      "SELECT * FROM read_csv('/etc/hostname')",
      'INSTALL fts',
      'LOAD fts',
    ]) {
      const outcome = await runCommand(query, [statement, '--db', db]);
      expect(outcome.code).toBe(2);
      expect(outcome.error?.message).toMatch(/refused: the statement reads or writes files/);
      // One hint, whether the statement's type or DuckDB's sandbox refused it.
      expect(outcome.error?.hint).toMatch(
        /^query reads the database, and files only under the --read folders/,
      );
    }
    expect(existsSync(leak)).toBe(false);
    expect(existsSync(join(dirname(db), 'other.duckdb'))).toBe(false);
    const setting = await runCommand(query, ['SET enable_external_access = true', '--db', db]);
    expect(setting.code).toBe(2);
  });

  test('bad SQL and a missing argument are usage errors', async () => {
    const bad = await runCommand(query, ['SELEC 1', '--db', db]);
    expect(bad.code).toBe(2);
    expect(bad.error?.message).toMatch(/Parser Error/);
    expect((await runCommand(query, ['--db', db])).code).toBe(2);
    expect((await runCommand(query, ['SELECT', '1', '--db', db])).code).toBe(2);
  });

  test('a query that outgrows its memory says so and names --memory', async () => {
    // A list aggregate cannot spill: ~100 MB of it in the 64 MiB pool of the smallest budget.
    const big = "SELECT length(list(repeat('x', 1000) || i)) AS n FROM range(100000) t(i)";
    const result = await runCommand(query, [big, '--db', db, '--memory', '192MB']);
    expect(result.code).toBe(1);
    expect(result.error).toBeInstanceOf(DatabaseError);
    expect(result.error?.message).toMatch(/ran out of memory/);
    expect((result.error as DatabaseError).hint).toMatch(/--memory/);
  });
});

describe('transcript_search', () => {
  test('finds utterances case-insensitively with job, time and speaker, leaving deleted jobs out', async () => {
    const rows = await sql(
      "SELECT job_id, created_at, speaker, start, text FROM transcript_search('refund') WHERE source = 'transcription'",
    );
    expect(rows).toEqual([
      {
        job_id: 'refund-call',
        created_at: '2026-10-31T23:59:59.999Z',
        speaker: expect.anything(),
        start: expect.any(Number),
        text: 'I want a REFUND of 100% now',
      },
    ]);
    const all = await sql(
      "SELECT job_id FROM transcript_search('REFUND', include_deleted := true) WHERE source = 'transcription' ORDER BY job_id",
    );
    expect(all.map((r) => r['job_id'])).toEqual(['refund-call', 'refund-deleted']);
  });

  test('treats % and _ in the search text literally', async () => {
    expect((await sql("SELECT job_id FROM transcript_search('100%')")).map((r) => r['job_id'])).toEqual([
      'refund-call',
    ]);
    expect(await sql("SELECT job_id FROM transcript_search('1_0%')")).toEqual([]);
  });
});

/** Another process with the file at `path` open for writing, as a running writer has it. */
async function holdOpen(path: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "const { DuckDBInstance } = await import('@duckdb/node-api'); await DuckDBInstance.create(process.argv[1]); console.log('ready'); setInterval(() => {}, 1000);",
      path,
    ],
    { cwd: projectRoot(), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`holder exited with ${code}`)));
  });
  return child;
}

describe('while a sync holds the file', () => {
  let holder: ChildProcess | undefined;

  afterAll(() => {
    holder?.kill('SIGKILL');
  });

  test('reports and queries wait --lock-wait, then say a sync holds the file; they work again once it ends', async () => {
    holder = await holdOpen(db);
    for (const [command, argv] of [
      [report, ['status']],
      [query, ['SELECT 1']],
    ] as const) {
      const outcome = await runCommand(command, [...argv, '--db', db, '--lock-wait', '300ms']);
      expect(outcome.code).toBe(1);
      expect(outcome.error).toBeInstanceOf(DatabaseError);
      expect((outcome.error as DatabaseError).busy).toBe(true);
      expect(outcome.error?.message).toMatch(/a sync is probably running/);
      expect(outcome.error?.message).toContain(db);
    }
    const exited = new Promise((resolve) => holder?.once('exit', resolve));
    holder.kill('SIGTERM');
    await exited;
    holder = undefined;
    expect((await runCommand(report, ['status', '--db', db])).code).toBe(0);
  });

  test('a writer of the lock that serves no reads (compact) is named, not taken for a sync', async () => {
    holder = await holdOpen(db);
    // The lock as `compact` writes it while it copies the file.
    const since = new Date().toISOString();
    const lock = {
      token: 't',
      pid: holder.pid,
      host: hostname(),
      command: 'compact',
      since,
      start_ticks: null,
    };
    writeFileSync(`${db}.lock`, JSON.stringify(lock));
    try {
      const outcome = await runCommand(report, ['status', '--db', db, '--lock-wait', '0s']);
      expect(outcome.code).toBe(1);
      expect((outcome.error as DatabaseError).busy).toBe(true);
      expect(outcome.error?.message).toBe(
        `${db} is being written by pid ${holder.pid} (transcript-sync compact) since ${since}, which serves no reads`,
      );
    } finally {
      rmSync(`${db}.lock`, { force: true });
      const exited = new Promise((resolve) => holder?.once('exit', resolve));
      holder.kill('SIGTERM');
      await exited;
      holder = undefined;
    }
  });
});

/**
 * Bad input at the command line and in the environment: each is one clear line on stderr naming
 * what to fix, exit code 2 (usage or configuration) or 1 (runtime), and the data already in the
 * database untouched (same fingerprint before and after).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../src/simulator/index.js';
import { projectRoot } from '../src/util/paths.js';
import { fileTempDir } from './helpers/analytics-data.js';
import { type CliResult, runCli } from './helpers/cli.js';
import { giveToChild, grantRead, runCliUnprivileged } from './helpers/cli-unprivileged.js';
import { fingerprint } from './helpers/db-fingerprint.js';
import { syncOnce } from './helpers/sync.js';
import { tempDir } from './helpers/tmp.js';

const template = fileTempDir('tsync-bad-input-');
const TEMPLATE_DB = join(template.dir, 'template.duckdb');
/** A service nobody listens on: a run that got past the checks would fail differently. */
const NO_SERVICE = { TSYNC_API_KEY: 'k', TSYNC_BASE_URL: 'http://127.0.0.1:9' };

beforeAll(async () => {
  const sim = await startSimulator({
    preRecorded: 15,
    live: 10,
    seed: 81,
    utterancesPerJob: 3,
    wordsPerUtterance: 3,
  });
  try {
    await syncOnce(sim, TEMPLATE_DB);
  } finally {
    await sim.close();
  }
});
afterAll(() => template.remove());

/** A copy of the synced template database in a fresh folder. */
function syncedDb(): string {
  const db = join(tempDir('tsync-bad-'), 'data.duckdb');
  copyFileSync(TEMPLATE_DB, db);
  return db;
}

function expectOneLine(result: CliResult, code: 1 | 2, ...mentions: string[]): void {
  const shown = `exit ${result.code}\n${result.stderr}`;
  expect(result.code, shown).toBe(code);
  const lines = result.stderr.trim().split('\n');
  expect(lines, shown).toHaveLength(1);
  expect(lines[0], shown).toMatch(/^transcript-sync: /);
  expect(lines[0], shown).not.toMatch(/unexpected error|\n\s+at /);
  for (const text of mentions) expect(lines[0], shown).toContain(text);
}

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 9));
    });
  });
}

const INJECTION = "x'; DROP TABLE jobs; --";

/** [args (the database is appended as --db), environment, what the line must name] */
const USAGE_ERRORS: readonly [readonly string[], Record<string, string>, string][] = [
  [['sync', '--bogus'], NO_SERVICE, 'sync --help'],
  [['sync', '--page-size', '0'], NO_SERVICE, '--page-size'],
  [['sync', '--concurrency', '99'], NO_SERVICE, '--concurrency'],
  [['sync', '--rate-limit', '-1'], NO_SERVICE, '--rate-limit'],
  [['sync', '--lookback', '5 parsecs'], NO_SERVICE, '--lookback'],
  [['sync', '--since', '2024-13-45'], NO_SERVICE, '--since'],
  [['sync', '--since', 'yesterday'], NO_SERVICE, '--since'],
  [['sync', '--kind', INJECTION], NO_SERVICE, '--kind'],
  [['sync', '--base-url', 'ftp://example.test'], NO_SERVICE, '--base-url'],
  [['sync', '--base-url', 'not a url'], NO_SERVICE, '--base-url'],
  [['sync'], { ...NO_SERVICE, TSYNC_BASE_URL: 'http//missing-colon' }, 'TSYNC_BASE_URL'],
  [['sync'], { TSYNC_BASE_URL: 'http://127.0.0.1:9' }, 'TSYNC_API_KEY'],
  [['sync', '--checkpoints', 'mongo'], NO_SERVICE, '--checkpoints'],
  [['sync', '--checkpoints', 'redis'], NO_SERVICE, 'REDIS_URL'],
  [['sync', '--redis-url', 'http://127.0.0.1:6379'], NO_SERVICE, '--redis-url'],
  [['sync', '--redis-prefix', 'a b'], NO_SERVICE, '--redis-prefix'],
  [['sync', '--metadata-encoding', 'xml'], NO_SERVICE, '--metadata-encoding'],
  [['report', 'billing', '--from', '2024-99-01'], {}, '--from'],
  [['report', 'billing', '--to', INJECTION], {}, '--to'],
  [['report', 'billing', '--kind', INJECTION], {}, '--kind'],
  [['report', 'billing', '--by', 'fortnight'], {}, '--by'],
  [['report', 'billing', '--group-by', INJECTION], {}, '--group-by'],
  [['report', 'billing', '--date', INJECTION], {}, '--date'],
  [['report', 'billing', '--prices', '/nonexistent/prices.json'], {}, '--prices'],
  [
    ['worker', '--report-prices', '/nonexistent/prices.json'],
    { ...NO_SERVICE, REDIS_URL: 'redis://127.0.0.1:9' },
    '--report-prices',
  ],
  [
    ['worker', '--report-group-by', 'customer'],
    { ...NO_SERVICE, REDIS_URL: 'redis://127.0.0.1:9' },
    '--report-group-by',
  ],
  [['report', INJECTION], {}, 'billing'],
  [['query', 'DELETE FROM jobs'], {}, 'read-only'],
  [['status', '--bogus'], {}, 'status --help'],
  [['quarantine', 'purge'], {}, 'quarantine'],
  [['worker', '--every', '0s'], { ...NO_SERVICE, REDIS_URL: 'redis://127.0.0.1:9' }, '--every'],
  [['enqueue', '--kind', 'podcasts'], { REDIS_URL: 'redis://127.0.0.1:9' }, '--kind'],
];

describe('bad flags, dates, URLs and settings', () => {
  it.each(USAGE_ERRORS)(
    '%j is a usage error (exit 2) naming the setting, with the data untouched',
    async (args, env, mentions) => {
      const db = syncedDb();
      const before = await fingerprint(db);
      // enqueue talks to Redis only and has no --db.
      const result = await runCli(args[0] === 'enqueue' ? args : [...args, '--db', db], env);
      expectOneLine(result, 2, mentions);
      expect(await fingerprint(db)).toEqual(before);
    },
  );

  it('an empty --db is a usage error naming --db', async () => {
    expectOneLine(await runCli(['sync', '--db', ''], NO_SERVICE), 2, '--db');
  });
});

describe('runtime failures (exit 1) name the fix and leave the data untouched', () => {
  it('Redis down with --checkpoints redis', async () => {
    const db = syncedDb();
    const before = await fingerprint(db);
    const env = { ...NO_SERVICE, REDIS_URL: `redis://127.0.0.1:${await closedPort()}` };
    expectOneLine(await runCli(['sync', '--db', db, '--checkpoints', 'redis'], env), 1, 'Redis', 'REDIS_URL');
    expect(await fingerprint(db)).toEqual(before);
  });

  it('a database file that is read-only for the user', async () => {
    const db = syncedDb();
    const dir = join(db, '..');
    grantRead(join(dir, '..'));
    giveToChild(dir, 0o700);
    giveToChild(db, 0o400);
    const before = await fingerprint(db);
    const result = await runCliUnprivileged(['sync', '--db', db], NO_SERVICE, dir);
    expectOneLine(result, 1, db, 'permission denied', '--db');
    expect(await fingerprint(db)).toEqual(before);
  });

  it('a database in a directory that is read-only for the user (no room for the write-ahead log)', async () => {
    const db = syncedDb();
    const dir = join(db, '..');
    grantRead(join(dir, '..'));
    giveToChild(db, 0o600);
    giveToChild(dir, 0o500);
    try {
      const before = await fingerprint(db);
      const result = await runCliUnprivileged(['sync', '--db', db], NO_SERVICE, dir);
      expectOneLine(result, 1, dir, 'writable', '--db');
      expect(await fingerprint(db)).toEqual(before);
      // A new file there is refused the same way, before anything is created.
      const fresh = await runCliUnprivileged(['sync', '--db', join(dir, 'new.duckdb')], NO_SERVICE, dir);
      expectOneLine(fresh, 1, '--db');
    } finally {
      chmodSync(dir, 0o700);
    }
  });

  it('a database file held by another process: waits --lock-wait, then names the holder', async () => {
    const db = syncedDb();
    const before = await fingerprint(db);
    const holder = await holdDatabase(db);
    try {
      const sync = await runCli(['sync', '--db', db, '--lock-wait', '300ms'], NO_SERVICE);
      expectOneLine(sync, 1, db, `PID ${holder.pid}`, '--lock-wait');
      const report = await runCli(['report', 'billing', '--db', db, '--lock-wait', '300ms']);
      expectOneLine(report, 1, db, '--lock-wait');
    } finally {
      holder.kill('SIGKILL');
      await new Promise((resolve) => holder.once('exit', resolve));
    }
    expect(await fingerprint(db)).toEqual(before);
  });

  it('a file that is not a DuckDB database is left byte for byte as it was', async () => {
    const path = join(tempDir('tsync-bad-'), 'notes.txt');
    writeFileSync(path, 'my notes, not a database\n');
    expectOneLine(await runCli(['sync', '--db', path], NO_SERVICE), 1, path, 'not a DuckDB database', '--db');
    expectOneLine(await runCli(['report', 'status', '--db', path]), 1, path);
    expect(readFileSync(path, 'utf8')).toBe('my notes, not a database\n');
  });

  it('a directory, or a path through a file, given as the database', async () => {
    const dir = join(tempDir('tsync-bad-'), 'a-folder');
    mkdirSync(dir);
    expectOneLine(await runCli(['sync', '--db', dir], NO_SERVICE), 1, dir, '--db');
    const file = join(dir, 'file.txt');
    writeFileSync(file, 'x');
    expectOneLine(await runCli(['sync', '--db', join(file, 'x.duckdb')], NO_SERVICE), 1, '--db');
    expect(readFileSync(file, 'utf8')).toBe('x');
  });
});

/** Another process holding the file open for writing, as a running sync would. */
async function holdDatabase(db: string): Promise<ChildProcess> {
  const script = [
    "const { DuckDBInstance } = await import('@duckdb/node-api');",
    'const instance = await DuckDBInstance.create(process.argv[1]);',
    'await instance.connect();',
    "process.stdout.write('ready\\n');",
    'setInterval(() => {}, 1000);',
  ].join('\n');
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, db], {
    cwd: projectRoot(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`the holder exited (${code})`)));
  });
  return child;
}

/**
 * Bad input at the command line and in the environment: each is one clear line on stderr naming
 * what to fix, exit code 2 (usage or configuration) or 1 (runtime), and the data already in the
 * database untouched (the same bytes, or else the same fingerprint, before and after). The commands
 * run in-process (runMain); those that need another user's file permissions run the binary, in
 * bad-input-permissions.test.ts.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../../src/simulator/index.js';
import { writerLockPath } from '../../../src/store/file/writer-lock.js';
import { openReadOnly, openWriter } from '../../../src/store/open-file.js';
import { projectRoot } from '../../../src/util/paths.js';
import { expectOneLine, NO_SERVICE, syncedTemplate } from '../../helpers/bad-input.js';
import { runMain } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/tmp.js';

const template = syncedTemplate();
const syncedDb = template.copy;

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 9));
    });
  });
}

const INJECTION = "x'; DROP TABLE jobs; --";

/** Bytes before the first block: the file header and two database headers of 4 KiB each. */
const HEADERS_BYTES = 3 * 4096;
/** Bytes at the start of each block that hold its checksum. */
const CHECKSUM_BYTES = 8;

/**
 * Where the first block `blocks` names is stored in the file: `blocks` is a query of DuckDB's
 * storage pragmas returning `block_id` and `block_offset` (bytes into the block's data).
 */
async function storedAt(db: string, blocks: string): Promise<number> {
  const file = await openReadOnly(db);
  try {
    const [size] = await file.all<{ block_size: number }>('SELECT block_size FROM pragma_database_size()');
    const [block] = await file.all<{ block_id: number; block_offset: number }>(blocks);
    if (!size || !block) throw new Error(`no block found by ${blocks}`);
    return HEADERS_BYTES + block.block_id * size.block_size + CHECKSUM_BYTES + block.block_offset;
  } finally {
    await file.close();
  }
}

/** Flips 32 bytes at `at`: the block there no longer matches its checksum. */
async function damageAt(db: string, at: number): Promise<void> {
  const handle = await open(db, 'r+');
  try {
    const bytes = Buffer.alloc(32);
    await handle.read(bytes, 0, bytes.length, at);
    await handle.write(
      bytes.map((b) => b ^ 0xff),
      0,
      bytes.length,
      at,
    );
  } finally {
    await handle.close();
  }
}

/** The block of the catalog: the open itself meets the damage. */
const CATALOG_BLOCK =
  'SELECT block_id, 0 AS block_offset FROM pragma_metadata_info() ORDER BY block_id LIMIT 1';
/** The block of jobs.id: the file opens, and a statement that reads jobs meets the damage. */
const JOBS_ID_BLOCK = `SELECT block_id, block_offset FROM pragma_storage_info('jobs')
  WHERE column_name = 'id' AND persistent AND block_id >= 0 ORDER BY block_id LIMIT 1`;

/** [args (the database is appended as --db), environment, what the line must name] */
const USAGE_ERRORS: readonly [readonly string[], Record<string, string>, string][] = [
  [['sync', '--bogus'], NO_SERVICE, 'sync --help'],
  [['sync', '--page-size', '0'], NO_SERVICE, '--page-size'],
  // A bad value is named before a missing one: fixing the key would only lead to the next refusal.
  [['sync', '--page-size', '0'], {}, '--page-size: must be a whole number from 1 to 1000 (got "0")'],
  [['sync', '--concurrency', '99'], NO_SERVICE, '--concurrency'],
  // Blank is no number, not 0: a share of 0 would let a --full run mark no job deleted.
  [['sync', '--max-delete-share', ' '], NO_SERVICE, '--max-delete-share: is empty'],
  [['sync'], { ...NO_SERVICE, TSYNC_MAX_DELETE_SHARE: ' ' }, 'TSYNC_MAX_DELETE_SHARE: is empty'],
  [['sync', '--rate-limit', '-1'], NO_SERVICE, '--rate-limit'],
  [['sync', '--lookback', '5 parsecs'], NO_SERVICE, '--lookback'],
  [['sync', '--since', '2024-13-45'], NO_SERVICE, '--since'],
  [['sync', '--since', 'yesterday'], NO_SERVICE, '--since'],
  [['sync', '--kind', 'podcasts'], NO_SERVICE, '--kind'],
  [['sync', '--kind', INJECTION], NO_SERVICE, '--kind'],
  [['sync', '--base-url', 'ftp://example.test'], NO_SERVICE, '--base-url'],
  [['sync', '--base-url', 'not a url'], NO_SERVICE, '--base-url'],
  [['sync'], { ...NO_SERVICE, TSYNC_BASE_URL: 'http//missing-colon' }, 'TSYNC_BASE_URL'],
  [['sync'], { ...NO_SERVICE, TSYNC_BASE_URL: 'ftp://example.test' }, 'TSYNC_BASE_URL'],
  [['sync'], { TSYNC_BASE_URL: 'http://127.0.0.1:9' }, 'TSYNC_API_KEY'],
  // A character no header carries, pasted with the key: named as the key's, not the network's.
  [
    ['sync'],
    { ...NO_SERVICE, TSYNC_API_KEY: 'sk\u2019live\u200b' },
    'TSYNC_API_KEY: holds a character a header cannot carry',
  ],
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
  [
    ['enqueue', '--timeout', '5m'],
    { REDIS_URL: 'redis://127.0.0.1:9' },
    '--timeout: applies to --wait, not to enqueue without --wait',
  ],
  [['state', 'show', 'extra'], {}, 'unexpected argument "extra"; see `transcript-sync state --help`'],
  [
    ['quarantine', 'list', 'extra'],
    {},
    'unexpected argument "extra"; see `transcript-sync quarantine --help`',
  ],
  // Durations need a unit and must be positive; each refusal names the flag.
  [
    ['worker', '--full-every', '5'],
    { ...NO_SERVICE, REDIS_URL: 'redis://127.0.0.1:9' },
    '--full-every: "5" has no unit',
  ],
  [
    ['worker', '--stale-after', '-5m'],
    { ...NO_SERVICE, REDIS_URL: 'redis://127.0.0.1:9' },
    '--stale-after: "-5m" must be more than zero',
  ],
  [
    ['worker', '--shutdown-timeout', '0s'],
    { ...NO_SERVICE, REDIS_URL: 'redis://127.0.0.1:9' },
    '--shutdown-timeout',
  ],
  [
    ['worker', '--every', '-1h'],
    { ...NO_SERVICE, REDIS_URL: 'redis://127.0.0.1:9' },
    '--every: "-1h" must be more than zero',
  ],
  // BullMQ renews the job lock at half its life: a shorter lock expires before its renewal answers.
  [
    ['worker', '--job-lock', '1ms'],
    { ...NO_SERVICE, REDIS_URL: 'redis://127.0.0.1:9' },
    '--job-lock: must be a duration of 2s or more (got "1ms")',
  ],
  [['sync', '--lookback', '15'], NO_SERVICE, '--lookback: "15" has no unit'],
  // A Node timer holds 2^31-1 ms: a longer wait would end at once.
  [
    ['enqueue', '--wait', '--timeout', '30d'],
    { REDIS_URL: 'redis://127.0.0.1:9' },
    '--timeout: must be a duration from 1ms to 24d',
  ],
  [
    ['worker', '--shutdown-timeout', '25d'],
    { ...NO_SERVICE, REDIS_URL: 'redis://127.0.0.1:9' },
    '--shutdown-timeout: must be a duration from 1ms to 24d',
  ],
  [
    ['worker'],
    { ...NO_SERVICE, REDIS_URL: 'redis://127.0.0.1:9', TSYNC_JOB_LOCK: '60d' },
    'TSYNC_JOB_LOCK: must be a duration from 1ms to 24d',
  ],
  // Beyond any date: a watermark or now minus it is no instant, and the run would crash on it.
  [['sync', '--lookback', '99999999d'], NO_SERVICE, '--lookback: "99999999d" must be at most 36500d'],
  [['sync'], { ...NO_SERVICE, TSYNC_PENDING_MAX_AGE: `${'9'.repeat(400)}d` }, 'TSYNC_PENDING_MAX_AGE: "999'],
  [
    ['worker', '--stale-after', '1000000w'],
    { ...NO_SERVICE, REDIS_URL: 'redis://127.0.0.1:9' },
    '--stale-after: "1000000w" must be at most 36500d',
  ],
  [['sync', '--lock-wait', '-1s'], NO_SERVICE, '--lock-wait'],
  [['sync', '--pending-max-age', '0d'], NO_SERVICE, '--pending-max-age'],
  // The service keeps a job 12 months at most.
  [
    ['sync', '--service-retention', '400d'],
    NO_SERVICE,
    '--service-retention: must be a duration from 2d to 366d',
  ],
  [['sync'], { ...NO_SERVICE, TSYNC_SERVICE_RETENTION: '12' }, 'TSYNC_SERVICE_RETENTION'],
];

describe('bad flags, dates, URLs and settings', () => {
  it.each(USAGE_ERRORS)(
    '%j is a usage error (exit 2) naming the setting, with the data untouched',
    async (args, env, mentions) => {
      const db = syncedDb();
      // enqueue talks to Redis only and has no --db.
      const result = await runMain(args[0] === 'enqueue' ? args : [...args, '--db', db], env);
      expectOneLine(result, 2, mentions);
      await template.expectUntouched(db);
    },
  );

  it('an empty --db is a usage error naming --db', async () => {
    expectOneLine(await runMain(['sync', '--db', ''], NO_SERVICE), 2, '--db');
  });

  it('a path that starts with ~ no shell expanded is a usage error, and no folder named ~ appears', async () => {
    const cwd = process.cwd();
    expectOneLine(await runMain(['sync', '--db', '~/m.duckdb'], NO_SERVICE), 2, '--db: starts with ~');
    expectOneLine(
      await runMain(['sync'], { ...NO_SERVICE, TSYNC_DB: '~/m.duckdb' }),
      2,
      'TSYNC_DB: starts with ~',
    );
    const db = syncedDb();
    expectOneLine(await runMain(['export', '--db', db, '--out', '~/exports']), 2, '--out: starts with ~');
    expectOneLine(await runMain(['query', 'SELECT 1', '--db', db, '--out', '~']), 2, '--out: starts with ~');
    expect(existsSync(join(cwd, '~'))).toBe(false);
  });

  it('a directory, or a path through a file, given as the database', async () => {
    const dir = join(tempDir('tsync-bad-'), 'a-folder');
    mkdirSync(dir);
    expectOneLine(await runMain(['sync', '--db', dir], NO_SERVICE), 2, `${dir} is a directory`, '--db');
    expectOneLine(await runMain(['status', '--db', dir]), 2, `${dir} is a directory`, '--db');
    const file = join(dir, 'file.txt');
    writeFileSync(file, 'x');
    const through = await runMain(['sync', '--db', join(file, 'x.duckdb')], NO_SERVICE);
    expectOneLine(through, 2, `${file} is a file, not a directory`, '--db');
    expect(through.stderr).not.toContain('writable');
    expect(readFileSync(file, 'utf8')).toBe('x');
  });
});

/** Stands for a file `notes.txt` beside the database in OUTPUT_FOLDERS' arguments. */
const NOTES = '<notes.txt>';
const WORKER_ENV = { ...NO_SERVICE, REDIS_URL: 'redis://127.0.0.1:9' };

/** [args (the database is appended as --db), environment, what the line must name] */
const OUTPUT_FOLDERS: readonly [readonly string[], Record<string, string>, readonly string[]][] = [
  [['sync', '--publish', '/proc/tsync-published'], NO_SERVICE, ['--publish', 'pseudo-filesystem']],
  [
    ['sync'],
    { ...NO_SERVICE, TSYNC_PUBLISH: '/sys/tsync-published' },
    ['TSYNC_PUBLISH', 'pseudo-filesystem'],
  ],
  [['sync', '--publish', NOTES], NO_SERVICE, ['--publish', 'notes.txt is a file, not a directory']],
  [['worker', '--publish', '/proc/tsync-published'], WORKER_ENV, ['--publish', 'pseudo-filesystem']],
  [['worker', '--publish', join(NOTES, 'published')], WORKER_ENV, ['--publish', 'notes.txt is a file']],
  [['export', '--out', '/proc/tsync-export'], {}, ['--out', 'pseudo-filesystem']],
  [['export', '--out', NOTES], {}, ['--out', 'notes.txt is a file, not a directory']],
  [['export', '--out', join(NOTES, 'export')], {}, ['--out', 'notes.txt is a file, not a directory']],
  [['query', 'SELECT 1', '--out', '/proc/tsync.csv'], {}, ['--out', 'pseudo-filesystem']],
  [
    ['query', 'SELECT 1', '--out', join(NOTES, 'r.csv')],
    {},
    ['--out', 'notes.txt is a file, not a directory'],
  ],
];

describe('output folders that cannot hold files', () => {
  it.each(OUTPUT_FOLDERS)(
    '%j is refused before anything starts (exit 2): no lock, socket or WAL left, the data untouched',
    async (args, env, mentions) => {
      const db = syncedDb();
      const notes = join(dirname(db), 'notes.txt');
      writeFileSync(notes, 'my notes\n');
      const given = args.map((arg) => arg.replace(NOTES, notes));
      const result = await runMain([...given, '--db', db], env);
      expectOneLine(result, 2, ...mentions);
      for (const beside of [writerLockPath(db), `${db}.sock`, `${db}.wal`])
        expect(existsSync(beside), beside).toBe(false);
      expect(readFileSync(notes, 'utf8')).toBe('my notes\n');
      await template.expectUntouched(db);
    },
  );
});

/** Stands for the database file in STORE_FILE_OUTPUTS' arguments. */
const DB = '<db>';

/** [args (the database is appended as --db), what the line must name] */
const STORE_FILE_OUTPUTS: readonly [readonly string[], readonly string[]][] = [
  [
    ['query', 'SELECT 1', '--format', 'csv', '--out', DB],
    ['--out', 'is the database file'],
  ],
  [
    ['query', 'SELECT 1', '--format', 'json', '--out', `${DB}.wal`],
    ['--out', 'beside the database'],
  ],
  [
    ['query', 'SELECT 1', '--format', 'csv', '--out', `${DB}.lock`],
    ['--out', 'beside the database'],
  ],
  [
    ['query', 'SELECT 1', '--out', `${DB}.worker.lock`, '--format', 'csv'],
    ['--out', 'beside the database'],
  ],
  [
    ['query', 'SELECT 1', '--format', 'parquet', '--out', `${DB}.compact-tmp`],
    ['--out', 'beside'],
  ],
  [
    ['query', 'SELECT 1', '--format', 'csv', '--out', '<link>/x/../data.duckdb'],
    ['--out', 'is the database file'],
  ],
];

describe('an output path that is the database or a file the store keeps beside it', () => {
  it.each(STORE_FILE_OUTPUTS)(
    '%j is refused (exit 2) before anything is written: the data untouched',
    async (args, mentions) => {
      const db = syncedDb();
      const link = join(tempDir('tsync-bad-'), 'link');
      symlinkSync(dirname(db), link);
      const given = args.map((arg) => arg.replace('<link>', link).replace(DB, db));
      mkdirSync(join(dirname(db), 'x'));
      const siblings = readdirSync(dirname(db)).sort();
      const result = await runMain([...given, '--db', db]);
      expectOneLine(result, 2, ...mentions, 'another');
      expect(readdirSync(dirname(db)).sort()).toEqual(siblings);
      await template.expectUntouched(db);
    },
  );

  it('a symlink or a hard link to the database is refused as the database is', async () => {
    const db = syncedDb();
    const elsewhere = tempDir('tsync-bad-');
    const symlink = join(elsewhere, 'result.csv');
    symlinkSync(db, symlink);
    const hardLink = join(elsewhere, 'copy.csv');
    linkSync(db, hardLink);
    for (const out of [symlink, hardLink]) {
      const result = await runMain(['query', 'SELECT 1', '--out', out, '--db', db]);
      expectOneLine(result, 2, '--out', 'is the database file');
    }
    expect(lstatSync(symlink).isSymbolicLink()).toBe(true);
    await template.expectUntouched(db);
  });

  it('export --overwrite into a folder whose table folder holds the database is refused', async () => {
    const out = tempDir('tsync-bad-');
    for (const db of [join(out, 'jobs', 'data.duckdb'), join(out, 'words')]) {
      mkdirSync(dirname(db), { recursive: true });
      copyFileSync(syncedDb(), db);
      const result = await runMain(['export', '--out', out, '--overwrite', '--db', db]);
      expectOneLine(result, 2, '--out', db, 'another');
      await template.expectUntouched(db);
    }
  });

  it('a file beside the database that is none of its own is written', async () => {
    const db = syncedDb();
    const out = `${db}.csv`;
    const result = await runMain(['query', 'SELECT 1 AS one', '--out', out, '--db', db]);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('one\n1\n');
  });
});

describe('a server that cannot listen where it is told', () => {
  it('simulate on a busy port names --port, on a host that is no address here names --host (exit 2)', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const busy = await runMain(['simulate', '--port', String(port)]);
      expectOneLine(busy, 2, `--port: 127.0.0.1:${port} is already in use`, '0 for any free one');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const host = await runMain(['simulate', '--host', '999.1.1.1', '--port', '0']);
    expectOneLine(host, 2, '--host: 999.1.1.1 is not an address of this machine');
  });
});

describe('query --read takes existing folders only', () => {
  it('a --read that does not exist, or is a file, is a usage error naming it', async () => {
    const dir = tempDir('tsync-bad-');
    const prices = join(dir, 'prices.json');
    writeFileSync(prices, '{}');
    const missing = join(dir, 'nonexistent');
    const cases: [string, string][] = [
      [missing, `--read: ${missing} does not exist`],
      [prices, `--read: ${prices} is a file, not a folder`],
      ['/proc/self', 'pseudo-filesystem'],
    ];
    for (const [read, mention] of cases) {
      const result = await runMain(['query', '--read', read, 'SELECT 1', '--db', syncedDb()]);
      expectOneLine(result, 2, mention);
      expect(result.stdout).toBe('');
    }
  });
});

describe('runtime failures (exit 1) name the fix and leave the data untouched', () => {
  it('Redis down with --checkpoints redis', async () => {
    const db = syncedDb();
    const env = { ...NO_SERVICE, REDIS_URL: `redis://127.0.0.1:${await closedPort()}` };
    expectOneLine(
      await runMain(['sync', '--db', db, '--checkpoints', 'redis'], env),
      1,
      'Redis',
      'REDIS_URL',
    );
    await template.expectUntouched(db);
  });

  it('a database file held by another process: waits --lock-wait, then names the holder', async () => {
    const db = syncedDb();
    const holder = await holdDatabase(db);
    try {
      const sync = await runMain(['sync', '--db', db, '--lock-wait', '300ms'], NO_SERVICE);
      expectOneLine(sync, 1, db, `PID ${holder.pid}`, '--lock-wait');
      const report = await runMain(['report', 'billing', '--db', db, '--lock-wait', '300ms']);
      expectOneLine(report, 1, db, '--lock-wait');
      const compact = await runMain(['compact', '--db', db, '--lock-wait', '300ms']);
      expectOneLine(compact, 1, db, `PID ${holder.pid}`, '--lock-wait');
    } finally {
      holder.kill('SIGKILL');
      await new Promise((resolve) => holder.once('exit', resolve));
    }
    await template.expectUntouched(db);
  });

  it('a file that is not a DuckDB database is left byte for byte as it was', async () => {
    const path = join(tempDir('tsync-bad-'), 'notes.txt');
    writeFileSync(path, 'my notes, not a database\n');
    expectOneLine(
      await runMain(['sync', '--db', path], NO_SERVICE),
      1,
      path,
      'not a DuckDB database',
      '--db',
    );
    expectOneLine(await runMain(['report', 'status', '--db', path]), 1, path);
    // compact says it is compacting only once the file is open: here the refusal is all it says.
    expectOneLine(await runMain(['compact', '--db', path]), 1, path, 'not a DuckDB database');
    expect(readFileSync(path, 'utf8')).toBe('my notes, not a database\n');
  });

  it('a command that changes a file refuses a path with no file instead of creating one', async () => {
    const path = join(tempDir('tsync-bad-'), 'typo.duckdb');
    for (const args of [['compact'], ['verify', '--repair'], ['state', 'reset', '--kind', 'all', '--yes']]) {
      expectOneLine(await runMain([...args, '--db', path]), 1, `${path} does not exist yet`, '--db');
      expect(existsSync(path), args.join(' ')).toBe(false);
    }
  });

  it('quarantine retry refuses a path with no file instead of creating one', async () => {
    const path = join(tempDir('tsync-bad-'), 'typo.duckdb');
    const retry = await runMain(['quarantine', 'retry', '--db', path]);
    expectOneLine(retry, 1, `${path} does not exist yet`, '--db');
    expect(retry.stdout).toBe('');
    expect(existsSync(path)).toBe(false);
  });

  it('a truncated database is called damaged, with the advice to move it aside', async () => {
    const db = syncedDb();
    const bytes = readFileSync(db);
    writeFileSync(db, bytes.subarray(0, Math.floor(bytes.length / 2)));
    for (const args of [['status'], ['sync']]) {
      const result = await runMain([...args, '--db', db], NO_SERVICE);
      expectOneLine(result, 1, db, 'damaged', 'move it aside');
      expect(result.stderr).not.toContain('check the path');
    }
  });

  it('a damaged block is called damaged, with the advice to move it aside, by every command that meets it', async () => {
    const sim = await startSimulator({
      preRecorded: 15,
      live: 10,
      seed: 81,
      utterancesPerJob: 3,
      wordsPerUtterance: 3,
    });
    try {
      const service = { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey };
      const commands = [['status'], ['verify'], ['query', 'SELECT id FROM jobs'], ['sync', '--full']];
      for (const block of [CATALOG_BLOCK, JOBS_ID_BLOCK]) {
        // Every copy is the template byte for byte: the block is at the same place in each.
        const at = await storedAt(syncedDb(), block);
        for (const args of commands) {
          const db = syncedDb();
          await damageAt(db, at);
          const ran = await runMain([...args, '--db', db], service);
          // A sync the damage stops mid-run reports each kind first (src/cli/sync-summary.ts).
          const closing = ran.stderr.trim().split('\n').at(-1) ?? '';
          const result = args[0] === 'sync' ? { ...ran, stderr: closing } : ran;
          expectOneLine(result, 1, `${db} is damaged or not a DuckDB database`, 'move it aside');
          expect(result.stderr).not.toContain('check the path');
        }
      }
    } finally {
      await sim.close();
    }
  });

  it('a SQLite file is named as such, not met with a hint to install an extension', async () => {
    const path = join(tempDir('tsync-bad-'), 'app.db');
    writeFileSync(path, Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(4080)]));
    for (const args of [['status'], ['sync']]) {
      const result = await runMain([...args, '--db', path], NO_SERVICE);
      expectOneLine(result, 1, `${path} is a SQLite database, not a DuckDB one`, '--db');
      expect(result.stderr).not.toMatch(/INSTALL|extension/i);
    }
  });

  it('a named pipe given as the database fails at once (exit 2) instead of waiting for a writer', async () => {
    const fifo = join(tempDir('tsync-bad-'), 'pipe.duckdb');
    execFileSync('mkfifo', [fifo]);
    for (const args of [['status'], ['sync']]) {
      const started = Date.now();
      expectOneLine(
        await runMain([...args, '--db', fifo], NO_SERVICE),
        2,
        `${fifo} is not a regular file`,
        '--db',
      );
      expect(Date.now() - started).toBeLessThan(10_000);
    }
  });

  it('a --db on /proc fails at once (exit 2) instead of reading a kernel file', async () => {
    for (const args of [
      ['status', '--db', '/proc/kmsg'],
      ['sync', '--db', '/proc/self/x.duckdb'],
      ['report', 'billing', '--db', '/proc/uptime'],
      ['sync', '--db', '/dev/tsync.duckdb'],
    ]) {
      const started = Date.now();
      const result = await runMain(args, NO_SERVICE);
      expectOneLine(result, 2, '--db', 'pseudo-filesystem');
      expect(Date.now() - started).toBeLessThan(10_000);
    }
  });

  it.skipIf(!existsSync('/dev/shm'))(
    'a --db on /dev/shm, a tmpfs of real files, is a database like any other',
    async () => {
      const folder = mkdtempSync('/dev/shm/tsync-shm-');
      try {
        const db = join(folder, 'scratch.duckdb');
        await (await openWriter(db)).close();
        const result = await runMain(['status', '--db', db, '--json'], NO_SERVICE);
        expect(result.code, result.stderr).toBe(0);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  );
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

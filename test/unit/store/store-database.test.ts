import { spawn } from 'node:child_process';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DatabaseError } from '../../../src/errors.js';
import { openReadOnly, openWriter } from '../../../src/store/open-file.js';
import { fixture } from '../../fixtures/fixtures.js';
import { loadRecords } from '../../helpers/load.js';
import { migratedDb } from '../../helpers/migrated-db.js';
import { tempDir } from '../../helpers/tmp.js';

const isRoot = process.getuid?.() === 0;

/** Starts a child process that opens `path` for writing and holds it until killed. */
async function holdFile(path: string): Promise<{ release: () => Promise<void>; pid: number }> {
  const script = `
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(${JSON.stringify(path)});
    await instance.connect();
    process.stdout.write('held\\n');
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (data: Buffer) => data.toString().includes('held') && resolve());
    child.once('exit', (code) => reject(new Error(`holder exited early with code ${code}`)));
  });
  return {
    pid: child.pid ?? 0,
    release: async () => {
      child.kill('SIGKILL');
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    },
  };
}

describe('opening a database file', () => {
  it('creates the directory 0700 and the file 0600, and applies the migrations', async () => {
    const dir = join(tempDir(), 'nested', 'data');
    const path = join(dir, 'transcripts.duckdb');
    const db = await openWriter(path);
    try {
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const versions = await db.all<{ version: number; name: string }>(
        'SELECT version, name FROM schema_migrations',
      );
      expect(versions[0]).toMatchObject({ version: 1, name: 'tables' });
      const tables = await db.all<{ table_name: string }>('SELECT table_name FROM information_schema.tables');
      expect(tables.map((t) => t.table_name)).toEqual(
        expect.arrayContaining(['jobs', 'utterances', 'words', 'quarantine']),
      );
    } finally {
      await db.close();
    }
  });

  it('applies migrations once: a second open writes nothing new', async () => {
    const path = join(tempDir(), 'x.duckdb');
    await (await openWriter(path)).close();
    const db = await openWriter(path);
    const rows = await db.all<{ n: number }>('SELECT count(*) AS n FROM schema_migrations');
    await db.close();
    expect(rows[0]?.n).toBeGreaterThan(0);
    expect(typeof rows[0]?.n).toBe('number');
  });

  it('refuses a read-only open of a missing file and says to run a sync first', async () => {
    const path = join(tempDir(), 'missing.duckdb');
    const error = await openReadOnly(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseError);
    expect((error as DatabaseError).toLine()).toMatch(/sync/);
  });

  it('refuses a read-only open of a file without the migrations and says to run a sync first', async () => {
    const path = join(tempDir(), 'bare.duckdb');
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const bare = await DuckDBInstance.create(path);
    const connection = await bare.connect();
    await connection.run('CREATE TABLE unrelated (x INTEGER)');
    connection.closeSync();
    bare.closeSync();
    const error = await openReadOnly(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseError);
    expect((error as DatabaseError).message).toContain(path);
    expect((error as DatabaseError).hint).toMatch(/transcript-sync sync/);
  });

  it('names the file and the fix when the file is not a database', async () => {
    const path = join(tempDir(), 'corrupt.duckdb');
    writeFileSync(path, 'not a database at all\n'.repeat(500));
    const error = await openWriter(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseError);
    expect((error as DatabaseError).message).toContain(path);
    expect((error as DatabaseError).hint).toMatch(/move it aside/);
  });

  it.skipIf(isRoot)('names the fix when the directory is not writable', async () => {
    const dir = tempDir();
    chmodSync(dir, 0o500);
    try {
      const error = await openWriter(join(dir, 'sub', 'x.duckdb')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DatabaseError);
      expect((error as DatabaseError).hint).toMatch(/--db/);
    } finally {
      chmodSync(dir, 0o700);
    }
  });

  it('waits for a file held by another process, then fails busy naming the file', async () => {
    const path = await migratedDb('held.duckdb');
    const holder = await holdFile(path);
    try {
      const error = await openWriter(path, { lockWaitMs: 300 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DatabaseError);
      expect((error as DatabaseError).busy).toBe(true);
      expect((error as DatabaseError).code).toBe('DB_BUSY');
      expect((error as DatabaseError).message).toContain(path);
      expect((error as DatabaseError).message).toMatch(/sync/);
    } finally {
      await holder.release();
    }
    const db = await openWriter(path, { lockWaitMs: 2_000 });
    await db.close();
  });
});

// Files that start as a copy of a migrated, empty one: these tests are not about its creation.
describe('Database queries and transactions', () => {
  it('binds named and positional values, and returns JSON-friendly rows', async () => {
    const db = await openWriter(await migratedDb('q.duckdb'));
    try {
      const rows = await db.all<{ n: number; t: Date; l: string[]; j: string }>(
        'SELECT count(*) AS n, $t::TIMESTAMPTZ AS t, $l::VARCHAR[] AS l, $j::JSON AS j FROM jobs',
        { t: new Date('2024-05-01T10:00:00.000Z'), l: ['en', 'fr'], j: { a: 1 } },
      );
      expect(rows[0]?.n).toBe(0);
      expect(rows[0]?.t.toISOString()).toBe('2024-05-01T10:00:00.000Z');
      expect(rows[0]?.l).toEqual(['en', 'fr']);
      expect(JSON.parse(rows[0]?.j ?? 'null')).toEqual({ a: 1 });
      const positional = await db.all<{ s: string }>('SELECT $1 || $2 AS s', ['a', 'b']);
      expect(positional[0]?.s).toBe('ab');
    } finally {
      await db.close();
    }
  });

  it('interrupt() stops the statement running, and the connection runs the next one', async () => {
    const db = await openWriter(await migratedDb('i.duckdb'));
    try {
      const long = db.all('SELECT count(*) AS n FROM range(1000000000000) AS t(i) WHERE i % 7 = 3');
      // Again and again: an interrupt before the statement starts stops nothing.
      const interrupting = setInterval(() => db.interrupt(), 50);
      try {
        await expect(long).rejects.toThrow(/interrupt/i);
      } finally {
        clearInterval(interrupting);
      }
      expect(await db.all<{ n: number }>('SELECT 1 AS n')).toEqual([{ n: 1 }]);
      db.interrupt();
    } finally {
      await db.close();
    }
  });

  it('rolls back everything written inside a transaction that throws', async () => {
    const db = await openWriter(await migratedDb('t.duckdb'));
    try {
      const failing = db.transaction(async () => {
        await db.run("INSERT INTO checkpoints VALUES ('live', '{}', now())");
        throw new Error('boom');
      });
      await expect(failing).rejects.toThrow('boom');
      expect(await db.all('SELECT * FROM checkpoints')).toEqual([]);
      await db.transaction(async () => {
        await db.run("INSERT INTO checkpoints VALUES ('live', '{}', now())");
      });
      expect(await db.all('SELECT kind FROM checkpoints')).toEqual([{ kind: 'live' }]);
    } finally {
      await db.close();
    }
  });

  it('runs a text with bound values again and again, and two callers of one text at once, each with its own values', async () => {
    const db = await openWriter(await migratedDb('p.duckdb'));
    try {
      const sql = 'SELECT $n::INTEGER * 2 AS twice, range AS i FROM range(3000)';
      // 3,000 rows: two result chunks, both read.
      for (const n of [1, 2, 3]) {
        const rows = await db.all<{ twice: number; i: number }>(sql, { n });
        expect(rows).toHaveLength(3000);
        expect(rows[2999]).toEqual({ twice: n * 2, i: 2999 });
      }
      // Started together: the second finds the kept statement between bind and run.
      const [a, b] = await Promise.all([db.all(sql, { n: 10 }), db.all(sql, { n: 20 })]);
      expect(a[0]).toEqual({ twice: 20, i: 0 });
      expect(b[0]).toEqual({ twice: 40, i: 0 });
      // A text of several statements with values still runs each of them.
      await db.run('CREATE TEMP TABLE t (v VARCHAR); INSERT INTO t VALUES ($1)', ['x']);
      await db.run("INSERT INTO t VALUES ('y'); INSERT INTO t VALUES ($1)", ['z']);
      expect(await db.all('SELECT v FROM t ORDER BY v')).toEqual([{ v: 'x' }, { v: 'y' }, { v: 'z' }]);
    } finally {
      await db.close();
    }
  });

  it('runs a kept query against a temp table that a statement with values made anew', async () => {
    const db = await openWriter(await migratedDb('r.duckdb'));
    try {
      for (const ids of [['a', 'b'], ['c']]) {
        await db.run('CREATE OR REPLACE TEMP TABLE _replaced_ids AS SELECT unnest($ids::VARCHAR[]) AS id', {
          ids,
        });
        expect(
          await db.all('SELECT id FROM _replaced_ids WHERE id <> $none ORDER BY id', { none: '' }),
        ).toEqual(ids.map((id) => ({ id })));
      }
    } finally {
      await db.close();
    }
  });

  it("has the loader's staging table from the open; after a rollback the loader still stores a job's words", async () => {
    const db = await openWriter(await migratedDb('s.duckdb'));
    try {
      const staging =
        "SELECT table_name FROM duckdb_tables() WHERE temporary AND table_name LIKE '_tsync_%' ORDER BY 1";
      const names = [{ table_name: '_tsync_keys' }];
      expect(await db.all(staging)).toEqual(names);
      await expect(
        db.transaction(async () => {
          await db.run("INSERT INTO _tsync_keys VALUES ('j', 'h', now())");
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await db.all(staging)).toEqual(names);
      expect(await db.all('SELECT * FROM _tsync_keys')).toEqual([]);
      const record = fixture('done-pre-recorded-all-modules');
      const loaded = await loadRecords(db, [record], new Date());
      expect(loaded.words).toBeGreaterThan(0);
      const [stored] = await db.all<{ n: number }>('SELECT count(*) AS n FROM words WHERE job_id = $id', {
        id: record['id'],
      });
      expect(stored?.n).toBe(loaded.words);
      // What a load stages it leaves behind in no table.
      expect(await db.all(staging)).toEqual(names);
      expect(await db.all('SELECT * FROM _tsync_keys')).toEqual([]);
    } finally {
      await db.close();
    }
  });
});

/**
 * A writer gives its DuckDB instance back and opens its file again between transactions
 * (Database.reopen): what it committed stays, the loader goes on loading, the read server's
 * sandbox is applied again, and nothing reopens under a transaction, a lent connection or another
 * handle of the same instance.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { serveReads } from '../../../src/analytics/read/read-server.js';
import { connectWriter } from '../../../src/analytics/read/reader.js';
import { RecordLoader } from '../../../src/load/loader.js';
import { silentLogger } from '../../../src/log.js';
import { normalizeTexts } from '../../../src/normalize/page-records.js';
import type { Database } from '../../../src/store/database.js';
import { openReadOnly, openWriter } from '../../../src/store/open-file.js';
import { addSeenIds, createSeenSet, dropSeenSet } from '../../../src/store/statements/seen.js';
import { smallDataset } from '../../helpers/analytics-data.js';
import { migratedDb } from '../../helpers/migrated-db.js';

const opened: Database[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

async function writer(): Promise<Database> {
  const db = await openWriter(await migratedDb('reopen.duckdb'));
  opened.push(db);
  return db;
}

async function count(db: Database, table: string): Promise<number> {
  const [row] = await db.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${table}`);
  return row?.n ?? -1;
}

describe('a writer opens its file again', () => {
  test('keeps what was committed, and the same loader goes on loading', async () => {
    const db = await writer();
    const records = smallDataset(5, 10);
    const texts = records.map((record) => JSON.stringify(record));
    const loader = new RecordLoader(db);
    await loader.load(normalizeTexts(texts.slice(0, 10)), new Date());
    const words = await count(db, 'words');
    expect(words).toBeGreaterThan(0);

    expect(await db.reopen()).toBe(true);
    expect(await count(db, 'jobs')).toBe(10);
    expect(await count(db, 'words')).toBe(words);
    // The staging tables are the connections': made again on the new ones.
    const second = await loader.load(normalizeTexts(texts.slice(5)), new Date());
    expect(second).toMatchObject({ inserted: 10, unchanged: 5 });
    expect(await count(db, 'jobs')).toBe(20);
  });

  test('not inside a transaction, nor while a connection is lent, nor beside another handle', async () => {
    const db = await writer();
    await db.transaction(async () => {
      expect(await db.reopen()).toBe(false);
    });
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = () => {};
    const lending = new Promise<void>((resolve) => {
      started = resolve;
    });
    const lent = db.withConnection(async () => {
      started();
      await held;
    });
    await lending;
    expect(await db.reopen()).toBe(false);
    release();
    await lent;
    const reader = await openReadOnly(db.path);
    try {
      expect(await db.reopen()).toBe(false);
    } finally {
      await reader.close();
    }
    expect(await db.reopen()).toBe(true);
  });

  test("a --full walk's seen ids outlive a reopen", async () => {
    const db = await writer();
    await createSeenSet(db);
    await addSeenIds(db, { ids: ['a', 'b'] });
    expect(await db.reopen()).toBe(true);
    await addSeenIds(db, { ids: ['c'] });
    expect(await db.all<{ n: number }>('SELECT count(*)::INTEGER AS n FROM seen_ids')).toEqual([{ n: 3 }]);
    await dropSeenSet(db);
    expect(
      await db.all<{ n: number }>(
        "SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = 'seen_ids'",
      ),
    ).toEqual([{ n: 0 }]);
  });

  test('a read-only open never reopens', async () => {
    const db = await writer();
    const path = db.path;
    await db.close();
    opened.splice(0);
    const reader = await openReadOnly(path);
    try {
      expect(await reader.reopen()).toBe(false);
    } finally {
      await reader.close();
    }
  });

  test('a connection asked for during a reopen is one of the new instance', async () => {
    const db = await writer();
    await db.run('CREATE TABLE kept (n INTEGER)');
    await db.run('INSERT INTO kept VALUES (1)');
    const reopening = db.reopen();
    const read = db.withConnection(async (connection) =>
      (await connection.runAndReadAll('SELECT count(*)::INTEGER AS n FROM kept')).getRowObjectsJS(),
    );
    expect(await reopening).toBe(true);
    expect(await read).toEqual([{ n: 1 }]);
  });

  test("the read server's sandbox holds on the instance opened again", async () => {
    const db = await writer();
    const reads = await serveReads(db, { logger: silentLogger });
    try {
      const refused = /external access|not allowed|disabled/i;
      const before = await connectWriter(db.path);
      await expect(before?.userQuery("SELECT * FROM read_text('/etc/hostname')", () => {})).rejects.toThrow(
        refused,
      );
      expect(await db.reopen()).toBe(true);
      const after = await connectWriter(db.path);
      await expect(after?.userQuery("SELECT * FROM read_text('/etc/hostname')", () => {})).rejects.toThrow(
        refused,
      );
    } finally {
      await reads.close();
    }
  });
});

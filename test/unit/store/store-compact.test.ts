/**
 * `transcript-sync compact` rewrites a file of the previous release (DuckDB's old storage format,
 * `raw` uncompressed) into the current format: every table equal, smaller, private, still valid.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { withReader } from '../../../src/analytics/read/open-reader.js';
import { isOutOfMemory, onOutOfMemory } from '../../../src/errors.js';
import { JOBS_GROUP_RAW_BYTES } from '../../../src/store/file/merge-row-groups.js';
import { compactFile } from '../../../src/store/file/rewrite-file.js';
import { openReadOnly, openWriter } from '../../../src/store/open-file.js';
import { tableRowCounts } from '../../../src/store/statements/file-upkeep.js';
import { verifyFile } from '../../../src/store/verify.js';
import { BIG_RAW_BYTES, writeBigRawFile } from '../../helpers/big-raw-file.js';
import { runMain } from '../../helpers/cli.js';
import { fingerprint } from '../../helpers/db-fingerprint.js';
import { writeLegacyFile } from '../../helpers/legacy-file.js';
import { migratedDb } from '../../helpers/migrated-db.js';
import { tempDir } from '../../helpers/tmp.js';

async function storageVersion(path: string): Promise<string> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const rows = (
      await connection.runAndReadAll(
        "SELECT tags['storage_version'] AS v FROM duckdb_databases() WHERE database_name = current_database()",
      )
    ).getRowsJS();
    return String(rows[0]?.[0]);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/**
 * Every job's id and content_hash, summed as hashes, with the count of its records: with verify's
 * check that each job's content_hash is the sha1 of its `raw`, the same digest means the same
 * records, without reading 90 MB of them.
 */
async function jobsDigest(path: string): Promise<unknown> {
  const db = await openReadOnly(path);
  try {
    return await db.all(
      `SELECT count(*) AS n, count(DISTINCT id) AS ids, sum(hash(id, content_hash)) AS h
       FROM jobs JOIN job_records ON job_id = id`,
    );
  } finally {
    await db.close();
  }
}

describe('transcript-sync compact', () => {
  it('rewrites an old file in the current storage format: same rows, smaller, 0600, verify passes', {
    timeout: 60_000,
  }, async () => {
    const path = join(tempDir(), 'legacy.duckdb');
    await writeLegacyFile(path, { jobs: 30, utterancesPerJob: 20 });
    // The first writable open migrates it (002), as a sync would.
    await (await openWriter(path)).close();
    const before = await fingerprint(path);
    const size = statSync(path).size;
    expect(await storageVersion(path)).toBe('v1.0.0+');

    const result = await runMain(['compact', '--db', path, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const sizes = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(sizes).sort()).toEqual(['bytes_after', 'bytes_before', 'db', 'format']);
    expect(sizes['bytes_before']).toBe(size);
    expect(statSync(path).size).toBe(sizes['bytes_after']);
    expect(sizes['bytes_after']).toBeLessThan(size / 2);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await storageVersion(path)).toBe('v1.2.0+');
    expect(await fingerprint(path)).toEqual(before);
    const verified = await runMain(['verify', '--db', path]);
    expect(verified.code, verified.stderr).toBe(0);
    // Views and macros came along.
    const db = await openReadOnly(path);
    const [row] = await db.all<{ n: number }>("SELECT count(*)::INTEGER AS n FROM transcript_search('a')");
    await db.close();
    expect(row?.n).toBeGreaterThan(0);
  });
});

describe('the copy compact writes beside the file', () => {
  it('is private to its owner from the moment it exists, even under umask 000, and gone after', async () => {
    const path = join(tempDir(), 'private.duckdb');
    await writeLegacyFile(path, { jobs: 20, utterancesPerJob: 5 });
    const seen: string[] = [];
    // Every entry of the copy beside the file, with its mode, at each step of the copy.
    const look = () => {
      for (const name of readdirSync(dirname(path))) {
        if (!name.startsWith(`${basename(path)}.compact-tmp`)) continue;
        seen.push(`${name} ${(statSync(join(dirname(path), name)).mode & 0o777).toString(8)}`);
      }
    };
    const umask = process.umask(0o000);
    try {
      const db = await openWriter(path);
      try {
        await compactFile(db, look, async () => look());
      } finally {
        await db.close();
      }
    } finally {
      process.umask(umask);
    }
    expect(seen.length).toBeGreaterThan(0);
    for (const entry of seen) expect(entry).toMatch(/ [0-7]00$/);
    expect(readdirSync(dirname(path)).filter((name) => name.includes('compact-tmp'))).toEqual([]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});

describe('the records compact writes', () => {
  it('come in row groups of about JOBS_GROUP_RAW_BYTES of raw each, which a reading within the budget reads', {
    timeout: 60_000,
  }, async () => {
    // 3,000 records of 30 KB in one row group: DuckDB decompresses a vector of 2,048 of them at
    // once (61 MB), more than a reading at a budget of 320 MB can hold (an 88 MiB pool).
    const path = join(tempDir(), 'big-raw.duckdb');
    await writeBigRawFile(path, 3_000);
    const checkRaw = () =>
      withReader(path, { lockWaitMs: 0, memory: 320e6 }, (reader) =>
        verifyFile(reader, { hashes: true, only: 'raw' }),
      );
    await expect(checkRaw()).rejects.toThrow(/Out of Memory/);
    const before = await jobsDigest(path);
    const result = await runMain(['compact', '--db', path, '--memory', '320MB', '--log-level', 'info']);
    expect(result.code, result.stderr).toBe(0);
    // Its progress: a line at the last batch at least, the last line (a slow copy logs earlier ones too).
    const copied = [...result.stderr.matchAll(/copied (\d+) of (\d+) batches of records/g)].at(-1);
    expect(copied?.[1]).toBe(copied?.[2]);
    expect(Number(copied?.[2])).toBeGreaterThan(1);
    expect(await jobsDigest(path)).toEqual(before);

    const db = await openReadOnly(path);
    const groups = await db.all<{ rows: number }>(
      "SELECT count AS rows FROM pragma_storage_info('job_records') WHERE column_name = 'raw' AND segment_type <> 'VALIDITY'",
    );
    await db.close();
    const perGroup = Math.floor(JOBS_GROUP_RAW_BYTES / BIG_RAW_BYTES) + 1;
    expect(groups.reduce((sum, g) => sum + g.rows, 0)).toBe(3_000);
    expect(groups.length).toBeGreaterThanOrEqual(Math.ceil(3_000 / perGroup));
    for (const group of groups) expect(group.rows).toBeLessThanOrEqual(perGroup);
    // The reading verify --hashes tries first, within the budget, now reads every raw: each the
    // record its job's content_hash, the same as before the compact, was taken of.
    expect((await checkRaw()).map((r) => [r.name, r.ok])).toEqual([
      ['jobs.content_hash is the sha1 of job_records.raw', true],
    ]);
  });

  it('come with every table of the schema, each compared by its row count', async () => {
    const path = await migratedDb('tables.duckdb');
    const db = await openWriter(path);
    try {
      const tables = await db.all<{ name: string }>(
        'SELECT table_name AS name FROM duckdb_tables() WHERE database_name = current_database() AND NOT temporary ORDER BY name',
      );
      const counted = (await tableRowCounts(db)).map((r) => r.t);
      expect(counted).toEqual(tables.map((t) => t.name));
    } finally {
      await db.close();
    }
  });
});

describe("compact's second attempt", () => {
  it("recognizes DuckDB's own out-of-memory error, and nothing else as one", async () => {
    // A list aggregate cannot spill: 100 MB of it in a pool of 16 MB fails as a file's raw does.
    const instance = await DuckDBInstance.create(':memory:', { memory_limit: '16MB', threads: '1' });
    const connection = await instance.connect();
    try {
      const failed = await connection
        .run("SELECT length(list(repeat('x', 1000) || i)) FROM range(100000) t(i)")
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(String(failed)).toContain('Out of Memory Error');
      expect(isOutOfMemory(failed)).toBe(true);
      const other = await connection.run('SELECT * FROM no_such_table').then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(other).toBeInstanceOf(Error);
      expect(isOutOfMemory(other)).toBe(false);
      // What compact and verify --hashes do with them: a second attempt after the first only.
      const oom = "SELECT length(list(repeat('x', 1000) || i)) FROM range(100000) t(i)";
      const again = async () => 'again';
      expect(await onOutOfMemory(() => connection.run(oom).then(() => 'first'), again)).toBe('again');
      await expect(
        onOutOfMemory(() => connection.run('SELECT * FROM no_such_table').then(() => 'first'), again),
      ).rejects.toThrow('no_such_table');
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});

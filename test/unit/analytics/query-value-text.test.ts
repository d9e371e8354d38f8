/**
 * `query` writes every value as docs/querying.md promises, in every format: timestamps of each
 * precision as ISO 8601 (a TIMESTAMP without zone has no Z, a TIMESTAMPTZ its Z), nested ones too;
 * NaN and the infinities as the strings "NaN", "Infinity", "-Infinity" in JSON (also through a
 * writer's read socket); a Parquet file keeps HUGEINT exact as DECIMAL(38,0) and refuses with one
 * line what Parquet cannot hold (a negative or sub-millisecond INTERVAL, a HUGEINT of 39 digits).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { formatJson } from '../../../src/analytics/format/output-format.js';
import { serveReads } from '../../../src/analytics/read/read-server.js';
import { connectWriter } from '../../../src/analytics/read/reader.js';
import { command as query } from '../../../src/cli/commands/query.js';
import { silentLogger } from '../../../src/log.js';
import { openWriter } from '../../../src/store/open-file.js';
import { runCommand } from '../../helpers/analytics-data.js';
import { copyMigrated } from '../../helpers/migrated-db.js';
import { fileTempDir, tempDir } from '../../helpers/tmp.js';

const folder = fileTempDir('tsync-values-');
const db = join(folder.dir, 'values.duckdb');
beforeAll(() => copyMigrated(db));
afterAll(() => folder.remove());

const TIMESTAMPS_SQL = [
  "SELECT TIMESTAMP '2026-10-31 23:11:39.512' AS ts, TIMESTAMP_NS '2026-10-31 23:11:39.512345678' AS ns,",
  "  TIMESTAMP_S '2026-10-31 23:11:39' AS s, TIMESTAMP_MS '2026-10-31 23:11:39.5' AS ms,",
  "  TIMESTAMP '2026-10-31 23:11:39.000001' AS us, TIMESTAMPTZ '2026-10-31 23:11:39.512+00' AS tz,",
  "  TIMESTAMP '0044-03-15 (BC) 12:00:00' AS bc, 'infinity'::TIMESTAMP AS inf,",
  "  [TIMESTAMP '2026-10-31 23:11:39.512'] AS list, {'at': TIMESTAMP_NS '2026-10-31 23:11:39'} AS struct",
].join('\n');

describe('timestamps', () => {
  test('JSON writes each precision as ISO 8601, Z only for TIMESTAMPTZ, inside lists and structs too', async () => {
    const outcome = await runCommand(query, [TIMESTAMPS_SQL, '--db', db, '--format', 'json']);
    expect(outcome.error).toBeUndefined();
    expect(JSON.parse(outcome.stdout)).toEqual([
      {
        ts: '2026-10-31T23:11:39.512',
        ns: '2026-10-31T23:11:39.512345678',
        s: '2026-10-31T23:11:39.000',
        ms: '2026-10-31T23:11:39.500',
        us: '2026-10-31T23:11:39.000001',
        tz: '2026-10-31T23:11:39.512Z',
        bc: '-000043-03-15T12:00:00.000',
        inf: 'infinity',
        list: ['2026-10-31T23:11:39.512'],
        struct: { at: '2026-10-31T23:11:39.000' },
      },
    ]);
  });

  test('CSV and the table print the same text', async () => {
    const sql = "SELECT TIMESTAMP '2026-10-31 23:11:39.512' AS ts, [TIMESTAMP '2026-10-31 23:11:39'] AS list";
    const csv = await runCommand(query, [sql, '--db', db, '--format', 'csv']);
    expect(csv.stdout).toBe('ts,list\n2026-10-31T23:11:39.512,"[""2026-10-31T23:11:39.000""]"\n');
    const table = await runCommand(query, [sql, '--db', db]);
    expect(table.stdout.split('\n')[2]).toBe('2026-10-31T23:11:39.512  ["2026-10-31T23:11:39.000"]');
  });
});

describe('dates', () => {
  test('a DATE takes the years and infinities of a timestamp: expanded ISO years, infinity as DuckDB spells it', async () => {
    const sql = [
      "SELECT DATE '2026-10-31' AS day, 'infinity'::DATE AS inf, '-infinity'::DATE AS ninf,",
      "  DATE '0001-01-01' - 1 AS one_bc, DATE '0044-03-15 (BC)' AS bc, DATE '12345-01-01' AS far,",
      "  ['infinity'::DATE] AS list",
    ].join('\n');
    const outcome = await runCommand(query, [sql, '--db', db, '--format', 'json']);
    expect(outcome.error).toBeUndefined();
    expect(JSON.parse(outcome.stdout)).toEqual([
      {
        day: '2026-10-31',
        inf: 'infinity',
        ninf: '-infinity',
        one_bc: '0000-12-31',
        bc: '-000043-03-15',
        far: '+012345-01-01',
        list: ['infinity'],
      },
    ]);
  });
});

const FLOATS_SQL =
  "SELECT 'nan'::DOUBLE AS nan, 'inf'::DOUBLE AS inf, '-inf'::FLOAT AS ninf, 1.5::DOUBLE AS x, ['nan'::DOUBLE, 2.0] AS l";
const FLOATS = [{ nan: 'NaN', inf: 'Infinity', ninf: '-Infinity', x: 1.5, l: ['NaN', 2] }];

describe('NaN and infinities', () => {
  test('JSON writes them as the strings "NaN", "Infinity" and "-Infinity", never null', async () => {
    const outcome = await runCommand(query, [FLOATS_SQL, '--db', db, '--format', 'json']);
    expect(JSON.parse(outcome.stdout)).toEqual(FLOATS);
    const csv = await runCommand(query, [FLOATS_SQL, '--db', db, '--format', 'csv']);
    expect(csv.stdout.split('\n')[1]).toBe('NaN,Infinity,-Infinity,1.5,"[""NaN"",2]"');
  });

  test('the same through the read socket of a sync holding the file', async () => {
    const held = await openWriter(join(tempDir(), 'held.duckdb'));
    const reads = await serveReads(held, { logger: silentLogger });
    try {
      const reader = await connectWriter(held.path);
      const printed: string[] = [];
      await reader?.userQuery(FLOATS_SQL, (table) => {
        printed.push(formatJson(table));
      });
      expect(JSON.parse(printed.join(''))).toEqual(FLOATS);
    } finally {
      await reads.close();
      await held.close();
    }
  });
});

describe('--out FILE.parquet', () => {
  async function readBack(dir: string, file: string): Promise<unknown> {
    const sql = `SELECT * FROM (DESCRIBE SELECT * FROM read_parquet('${file}')); SELECT * FROM read_parquet('${file}')`;
    const outcome = await runCommand(query, [sql, '--db', db, '--read', dir, '--format', 'json']);
    expect(outcome.error).toBeUndefined();
    return outcome.stdout;
  }

  test('keeps HUGEINT and UHUGEINT exact as DECIMAL(38,0), nested ones too', async () => {
    const dir = tempDir();
    const out = join(dir, 'huge.parquet');
    const sql = [
      'SELECT 99999999999999999999999999999999999999::HUGEINT AS h, -12345678901234567890123::HUGEINT AS n,',
      "  [12345678901234567890123::HUGEINT] AS l, {'a b': 2::UHUGEINT} AS s, INTERVAL '1 day 1.5 s' AS i",
    ].join('\n');
    const written = await runCommand(query, [sql, '--db', db, '--out', out]);
    expect(written.error).toBeUndefined();
    const text = String(await readBack(dir, out));
    const [describe = '', values = ''] = text.split(/\n(?=\[)/);
    expect(
      JSON.parse(describe).map((c: Record<string, unknown>) => [c['column_name'], c['column_type']]),
    ).toEqual([
      ['h', 'DECIMAL(38,0)'],
      ['n', 'DECIMAL(38,0)'],
      ['l', 'DECIMAL(38,0)[]'],
      ['s', 'STRUCT("a b" DECIMAL(38,0))'],
      ['i', 'INTERVAL'],
    ]);
    expect(values).toContain('"h": 99999999999999999999999999999999999999,');
    expect(values).toContain('"n": -12345678901234567890123,');
    expect(values).toContain('"l": [12345678901234567890123],');
    expect(values).toContain('"i": "P1DT1.5S"');
  });

  test.each([
    ['SELECT -INTERVAL 1 DAY AS i', /column "i" holds the negative interval P-1D, .*cannot be written/],
    ["SELECT [INTERVAL '-1 second'] AS i", /column "i" holds the negative interval PT-1S/],
    [
      "SELECT INTERVAL '1.0005 second' AS i",
      /column "i" holds the interval PT1.0005S, finer than the milliseconds/,
    ],
    [
      'SELECT 170141183460469231731687303715884105727::HUGEINT AS h',
      /column "h" holds the HUGEINT 170141183460469231731687303715884105727, past the 38 digits/,
    ],
  ])('refuses what Parquet cannot hold in one line, and writes no file: %s', async (sql, message) => {
    const dir = tempDir();
    const out = join(dir, 'refused.parquet');
    const outcome = await runCommand(query, [sql, '--db', db, '--out', out]);
    expect(outcome.code).toBe(2);
    expect(outcome.error?.message).toMatch(/^--out: /);
    expect(outcome.error?.message).toMatch(message);
    expect(outcome.error?.toLine()).not.toMatch(/\n/);
    expect(outcome.error?.hint).toMatch(/CAST\(".*" AS VARCHAR\)/);
    const listed = await runCommand(query, [
      `SELECT count(*) AS files FROM glob('${dir}/*')`,
      '--db',
      db,
      '--read',
      dir,
      '--format',
      'csv',
    ]);
    expect(listed.stdout).toBe('files\n0\n');
  });
});

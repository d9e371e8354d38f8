import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, test } from 'vitest';
import type { ResultTable } from '../../../src/analytics/format/result-table.js';
import { serveReads } from '../../../src/analytics/read/read-server.js';
import { connectWriter } from '../../../src/analytics/read/reader.js';
import { command as exportCommand } from '../../../src/cli/commands/export.js';
import { command as query } from '../../../src/cli/commands/query.js';
import { silentLogger } from '../../../src/log.js';
import { openWriter } from '../../../src/store/open-file.js';
import { loadedDatabase, runCommand, smallDataset } from '../../helpers/analytics-data.js';
import { runMain } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/tmp.js';

const records = smallDataset(77, 15);
const db = loadedDatabase('query-input', records);
const jobs = records.length;

describe('query takes SQL as DuckDB does', () => {
  test('runs several statements and prints each result, in order', async () => {
    const csv = await runCommand(query, [
      'SELECT count(*) AS n FROM jobs; SELECT 2 AS two, 3 AS three;',
      '--db',
      db,
      '--format',
      'csv',
    ]);
    expect(csv.error).toBeUndefined();
    expect(csv.stdout).toBe(`n\n${jobs}\n\ntwo,three\n2,3\n`);
    const json = await runCommand(query, ['SELECT 1 AS a; SELECT 2 AS b', '--db', db, '--format', 'json']);
    const documents = json.stdout
      .trim()
      .split(/\n(?=\[)/)
      .map((text) => JSON.parse(text) as unknown);
    expect(documents).toEqual([[{ a: 1 }], [{ b: 2 }]]);
  });

  test('a refused statement stops the text before anything after it runs', async () => {
    const outcome = await runCommand(query, ['SELECT 1; DELETE FROM jobs; SELECT 2', '--db', db]);
    expect(outcome.code).toBe(2);
    expect(outcome.error?.message).toMatch(/would change the database/);
    expect(
      (await runCommand(query, ['SELECT count(*) AS n FROM jobs', '--db', db, '--format', 'csv'])).stdout,
    ).toBe(`n\n${jobs}\n`);
  });

  test('reads the SQL from a file with -f and writes the result with --out', async () => {
    const dir = tempDir();
    const file = join(dir, 'counts.sql');
    writeFileSync(
      file,
      "-- per kind\nSELECT kind, count(*) AS n FROM jobs GROUP BY kind ORDER BY kind;\nSELECT 'done' AS end;\n",
    );
    const out = join(dir, 'result.csv');
    const outcome = await runCommand(query, ['-f', file, '--db', db, '--format', 'csv', '--out', out]);
    expect(outcome.error).toBeUndefined();
    expect(outcome.stdout).toBe('');
    const perKind = (kind: string) => records.filter((r) => r['kind'] === kind).length;
    expect(readFileSync(out, 'utf8')).toBe(
      `kind,n\nlive,${perKind('live')}\npre-recorded,${perKind('pre-recorded')}\n\nend\ndone\n`,
    );
    const missing = await runCommand(query, ['-f', join(dir, 'nope.sql'), '--db', db]);
    expect(missing.code).toBe(2);
    expect(missing.error?.message).toMatch(/-f: cannot read/);
    expect((await runCommand(query, ['SELECT 1', '-f', file, '--db', db])).code).toBe(2);
  });

  test('takes SQL that opens with a comment as SQL, not as a flag', async () => {
    for (const sql of ['-- how many\nSELECT 1 AS one', '--how many\nSELECT 1 AS one']) {
      const outcome = await runCommand(query, [sql, '--db', db, '--format', 'csv']);
      expect(outcome.error, JSON.stringify(sql)).toBeUndefined();
      expect(outcome.stdout).toBe('one\n1\n');
    }
    const comments = await runCommand(query, ['-- only\t-- comments', '--db', db]);
    expect(comments.code).toBe(2);
    expect(comments.error?.message).toMatch(/holds no statement, only comments/);
    const after = await runCommand(query, ['--db', db, '--format', 'csv', '-- comment\nSELECT 2 AS two']);
    expect(after.stdout).toBe('two\n2\n');
    // A flag is still a flag, and a flag's value still its value.
    expect((await runCommand(query, ['--bogus', 'SELECT 1', '--db', db])).error?.message).toMatch(
      /unknown flag --bogus/,
    );
    const out = join(tempDir(), 'with space.csv');
    const inline = await runCommand(query, ['SELECT 3 AS three', `--db=${db}`, `--out=${out}`]);
    expect(inline.error).toBeUndefined();
    expect(readFileSync(out, 'utf8')).toBe('three\n3\n');
    expect((await runCommand(query, ['SELECT 1', '--db', '-- x y'])).error?.message).toMatch(
      /--db needs a value, not the flag -- x y/,
    );
  });

  test('reads the SQL from stdin with -', async () => {
    const { code, stdout } = await runMain(
      ['query', '-', '--db', db, '--format', 'csv'],
      {},
      'SELECT count(*) AS n FROM jobs;\nSELECT 42 AS answer;\n',
    );
    expect(code).toBe(0);
    expect(stdout).toBe(`n\n${jobs}\n\nanswer\n42\n`);
  });

  test('JSON, list and struct columns come out nested in --format json, as text in CSV', async () => {
    const sql = `SELECT '{"a":[1,2]}'::JSON AS j, [1, 2] AS l, {'x': 'y'} AS s, NULL::INTEGER[] AS none, 'plain' AS t`;
    const json = await runCommand(query, [sql, '--db', db, '--format', 'json']);
    expect(JSON.parse(json.stdout)).toEqual([
      { j: { a: [1, 2] }, l: [1, 2], s: { x: 'y' }, none: null, t: 'plain' },
    ]);
    const csv = await runCommand(query, [sql, '--db', db, '--format', 'csv']);
    expect(csv.stdout).toBe('j,l,s,none,t\n"{""a"":[1,2]}","[1,2]","{""x"":""y""}",,plain\n');
    const languages = await runCommand(query, [
      'SELECT languages FROM jobs WHERE languages IS NOT NULL LIMIT 1',
      '--db',
      db,
      '--format',
      'json',
    ]);
    expect(typeof (JSON.parse(languages.stdout) as { languages: unknown }[])[0]?.languages).toBe('object');
  });

  test('--read opens the Parquet of an export folder to SQL; every other file stays refused', async () => {
    const out = join(tempDir(), 'exported');
    expect((await runCommand(exportCommand, ['--out', out, '--db', db])).code).toBe(0);
    const parquet = `read_parquet('${join(out, 'jobs', '**', '*.parquet')}', hive_partitioning = true)`;
    const counted = await runCommand(query, [
      `SELECT count(*) AS n FROM ${parquet}`,
      '--db',
      db,
      '--read',
      out,
      '--format',
      'csv',
    ]);
    expect(counted.error).toBeUndefined();
    expect(counted.stdout).toBe(`n\n${jobs}\n`);
    const without = await runCommand(query, [`SELECT count(*) FROM ${parquet}`, '--db', db]);
    expect(without.code).toBe(2);
    expect(without.error?.message).toMatch(/reads or writes files/);
    for (const statement of [
      "SELECT * FROM read_csv('/etc/hostname')",
      `SELECT * FROM read_text('${out}/../../../../etc/hostname')`,
      `COPY (SELECT 1) TO '${join(out, 'x.csv')}'`,
    ]) {
      const outcome = await runCommand(query, [statement, '--db', db, '--read', out]);
      expect(outcome.code, statement).toBe(2);
      expect(outcome.error?.message, statement).toMatch(/reads or writes files/);
    }
  });
});

describe('query --read reads a published dataset or an export without a database file', () => {
  test('with no file at --db the SQL reads the --read files alone; a table of the database is named missing, with why', async () => {
    const out = join(tempDir(), 'exported');
    expect((await runCommand(exportCommand, ['--out', out, '--db', db])).code).toBe(0);
    const noFile = join(tempDir(), 'none.duckdb');
    const parquet = `read_parquet('${join(out, 'jobs', '**', '*.parquet')}', hive_partitioning = true)`;
    const counted = await runMain([
      'query',
      `SELECT count(*) AS n FROM ${parquet}`,
      '--read',
      out,
      '--format',
      'csv',
      '--db',
      noFile,
    ]);
    expect(counted.stderr).toBe('');
    expect(counted.stdout).toBe(`n\n${jobs}\n`);
    const table = await runMain(['query', 'SELECT count(*) FROM jobs', '--read', out, '--db', noFile]);
    expect(table.code).toBe(2);
    expect(table.stderr).toContain(`${noFile} does not exist, so only files below --read can be read`);
    // The sandbox holds as on a file: nothing outside --read, no file made at --db.
    const outside = await runMain([
      'query',
      "SELECT * FROM read_csv('/etc/hostname')",
      '--read',
      out,
      '--db',
      noFile,
    ]);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/reads or writes files/);
    expect(existsSync(noFile)).toBe(false);
  });
});

describe('query writes where and how it is told, as the DuckDB CLI does', () => {
  test("--out takes its format from the extension: .json, .csv and .parquet with the result's types", async () => {
    const dir = tempDir();
    const sql = "SELECT 12345678901234567.89::DECIMAL(38,2) AS d, [1, 2] AS l, 'x' AS t";
    for (const name of ['r.json', 'r.csv', 'r.parquet']) {
      const outcome = await runCommand(query, [sql, '--db', db, '--out', join(dir, name)]);
      expect(outcome.error, name).toBeUndefined();
      expect(outcome.stdout, name).toBe('');
    }
    expect(readFileSync(join(dir, 'r.json'), 'utf8')).toBe(
      '[\n  {\n    "d": 12345678901234567.89,\n    "l": [1,2],\n    "t": "x"\n  }\n]\n',
    );
    expect(readFileSync(join(dir, 'r.csv'), 'utf8')).toBe('d,l,t\n12345678901234567.89,"[1,2]",x\n');
    const parquet = `read_parquet('${join(dir, 'r.parquet')}')`;
    const back = await runCommand(query, [
      `SELECT typeof(d) AS dt, typeof(l) AS lt, d::VARCHAR AS d, l::VARCHAR AS l, t FROM ${parquet}`,
      '--db',
      db,
      '--read',
      dir,
      '--format',
      'csv',
    ]);
    expect(back.stdout).toBe('dt,lt,d,l,t\n"DECIMAL(38,2)",INTEGER[],12345678901234567.89,"[1, 2]",x\n');
    // Only the files asked for: no temporary file left beside them.
    expect(readdirSync(dir).sort()).toEqual(['r.csv', 'r.json', 'r.parquet']);
  });

  test('Parquet of a result whose column names repeat (SELECT * of a join) names them as DuckDB COPY does', async () => {
    const dir = tempDir();
    const out = join(dir, 'joined.parquet');
    const sql =
      'SELECT j.id, f.id, 1 AS a, 2 AS A, 3 AS a, 4 AS a_1 FROM jobs AS j JOIN job_facts AS f ON f.id = j.id ORDER BY j.id LIMIT 1';
    const outcome = await runCommand(query, [sql, '--db', db, '--out', out]);
    expect(outcome.error?.message).toBeUndefined();
    const back = await runCommand(query, [
      `SELECT * FROM read_parquet('${out}')`,
      '--db',
      db,
      '--read',
      dir,
      '--format',
      'json',
    ]);
    const id = [...records.map((r) => String(r['id']))].sort()[0];
    expect(JSON.parse(back.stdout)).toEqual([{ id, id_1: id, a: 1, A_1: 2, a_2: 3, a_1_1: 4 }]);
  });

  test('an extension it cannot tell, a missing folder and Parquet of several statements are refused in one line', async () => {
    const dir = tempDir();
    const refusals: [string[], RegExp][] = [
      [['SELECT 1', '--out', join(dir, 'r.txt')], /^--out: cannot tell the format from "\.txt"/],
      [['SELECT 1', '--out', join(dir, 'result')], /^--out: cannot tell the format from a name without/],
      [['SELECT 1', '--out', join(dir, 'missing', 'r.json')], /^--out: folder .*missing does not exist/],
      [
        ['SELECT 1; SELECT 2', '--out', join(dir, 'r.parquet')],
        /holds 2 statements; a Parquet file holds one/,
      ],
      [['SELECT 1', '--format', 'parquet'], /parquet is written to a file/],
    ];
    for (const [argv, message] of refusals) {
      const outcome = await runCommand(query, [...argv, '--db', db]);
      expect(outcome.code, argv.join(' ')).toBe(2);
      expect(outcome.error?.message, argv.join(' ')).toMatch(message);
      expect(outcome.error?.message.includes('\n')).toBe(false);
    }
    expect(existsSync(join(dir, 'missing'))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
    // --format wins over the extension.
    const csv = await runCommand(query, [
      'SELECT 1 AS a',
      '--db',
      db,
      '--out',
      join(dir, 'r.txt'),
      '--format',
      'csv',
    ]);
    expect(csv.error).toBeUndefined();
    expect(readFileSync(join(dir, 'r.txt'), 'utf8')).toBe('a\n1\n');
  });

  test('EXPLAIN ANALYZE prints its whole plan in a table, never cut', async () => {
    const outcome = await runCommand(query, [
      "EXPLAIN ANALYZE SELECT kind, count(*) FROM jobs WHERE status = 'done' GROUP BY kind",
      '--db',
      db,
    ]);
    expect(outcome.error).toBeUndefined();
    expect(outcome.stdout).not.toContain('…');
    const lines = outcome.stdout.split('\n');
    expect(lines.length).toBeGreaterThan(20);
    expect(outcome.stdout).toMatch(/Total Time/);
    expect(outcome.stdout).toMatch(/TABLE_SCAN/);
    expect(outcome.stdout).toMatch(/HASH_GROUP_BY/);
  });

  test('a failing third statement: the first two results are printed, then the error', async () => {
    const outcome = await runCommand(query, [
      'SELECT 1 AS a; SELECT 2 AS b; SELECT * FROM no_such_table; SELECT 4 AS d',
      '--db',
      db,
      '--format',
      'csv',
    ]);
    expect(outcome.stdout).toBe('a\n1\n\nb\n2\n');
    expect(outcome.code).toBe(2);
    expect(outcome.error?.message).toMatch(/no_such_table does not exist/);
  });

  test('through the read socket of a sync: the same results before the error, and Parquet', async () => {
    const held = await openWriter(join(tempDir(), 'held.duckdb'));
    const reads = await serveReads(held, { logger: silentLogger });
    try {
      const reader = await connectWriter(held.path);
      const tables: ResultTable[] = [];
      await expect(
        reader?.userQuery('SELECT 1 AS a; SELECT 2 AS b; SELECT * FROM no_such_table', (table) => {
          tables.push(table);
        }),
      ).rejects.toThrow(/no_such_table does not exist/);
      expect(tables.map((t) => t.rows)).toEqual([[[1]], [[2]]]);
      const file = join(tempDir(), 'socket.parquet');
      expect(await reader?.userQueryParquet('SELECT 0.61::DECIMAL(18,6) AS price FROM range(3)', file)).toBe(
        3,
      );
      // The writer's instance reads no files: read the copy in an instance of the test's own.
      const check = await DuckDBInstance.create(':memory:');
      const connection = await check.connect();
      const read = await connection.runAndReadAll(
        `SELECT typeof(price) AS t, count(*)::INTEGER AS n FROM read_parquet('${file}') GROUP BY ALL`,
      );
      connection.closeSync();
      check.closeSync();
      expect(read.getRowObjectsJS()).toEqual([{ t: 'DECIMAL(18,6)', n: 3 }]);
    } finally {
      await reads.close();
      await held.close();
    }
  });
});

describe('query names what it refuses, and runs what only reads', () => {
  test('a refused statement is named with its article, INSTALL as itself', async () => {
    for (const [statement, named] of [
      ["INSERT INTO jobs (id) VALUES ('x')", 'an INSERT statement'],
      ["UPDATE jobs SET status = 'done'", 'an UPDATE statement'],
      ['DELETE FROM jobs', 'a DELETE statement'],
      [`ATTACH '${join(tempDir(), 'other.duckdb')}' AS other`, 'an ATTACH statement'],
      ['INSTALL httpfs', 'an INSTALL or LOAD statement'],
      ['LOAD httpfs', 'an INSTALL or LOAD statement'],
    ] as const) {
      const outcome = await runCommand(query, [statement, '--db', db]);
      expect(outcome.code, statement).toBe(2);
      expect(outcome.error?.message, statement).toContain(`(${named})`);
    }
  });

  test('CALL of a table function reads, on the file and through the read socket of a sync', async () => {
    const version = 'SELECT * FROM pragma_version()';
    const expected = (await runCommand(query, [version, '--db', db, '--format', 'csv'])).stdout;
    const called = await runCommand(query, ['CALL pragma_version()', '--db', db, '--format', 'csv']);
    expect(called.error).toBeUndefined();
    expect(called.stdout).toBe(expected);
    const held = await openWriter(join(tempDir(), 'held.duckdb'));
    const reads = await serveReads(held, { logger: silentLogger });
    try {
      const reader = await connectWriter(held.path);
      const tables: ResultTable[] = [];
      await reader?.userQuery("CALL pragma_table_info('jobs')", (table) => {
        tables.push(table);
      });
      expect(tables[0]?.rows.length).toBeGreaterThan(5);
      // A checkpoint, which a READ ONLY transaction lets through on the writer, is refused by name.
      for (const statement of [
        'CHECKPOINT',
        'FORCE CHECKPOINT',
        'CALL checkpoint()',
        'SELECT * FROM force_checkpoint()',
        "SELECT 1; select * from CHECKPOINT ('memory')",
      ]) {
        await expect(
          reader?.userQuery(statement, () => {}),
          statement,
        ).rejects.toThrow(/would change the database, and query is read-only \(a CHECKPOINT\)/);
      }
      const named: ResultTable[] = [];
      await reader?.userQuery(
        "SELECT count(*) AS n, 'checkpoint()' AS s FROM checkpoints -- CHECKPOINT",
        (table) => {
          named.push(table);
        },
      );
      expect(named[0]?.rows).toEqual([[0, 'checkpoint()']]);
    } finally {
      await reads.close();
      await held.close();
    }
  });
});

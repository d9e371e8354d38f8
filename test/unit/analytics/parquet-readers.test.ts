/**
 * The exported and published Parquet files as a reader other than DuckDB sees them (hyparquet, a
 * Parquet reader written in JavaScript from the format's spec): the JSON columns (custom_metadata,
 * post_session_metadata, request_params, raw, module results) are UTF-8 strings, as pyarrow and
 * polars read them too, each the text DuckDB holds.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { describe, expect, test } from 'vitest';
import { publishDataset } from '../../../src/analytics/publish/publish.js';
import { command as exportCommand } from '../../../src/cli/commands/export.js';
import { openReadOnly } from '../../../src/store/open-file.js';
import { loadedDatabase, runCommand, smallDataset } from '../../helpers/analytics-data.js';
import { tempDir } from '../../helpers/tmp.js';

const db = loadedDatabase('parquet-readers', smallDataset(61, 12));

const JOB_JSON = ['custom_metadata', 'post_session_metadata', 'request_params'] as const;

/** Every .parquet file below `dir`. */
function parquetFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.parquet'))
    .map((name) => join(dir, name));
}

interface ColumnRead {
  /** Physical type, converted type and logical type of each file's column. */
  readonly types: Set<string>;
  /** key column value -> the column's value, over every file. */
  readonly values: Map<string, unknown>;
}

/** One column of every file in `dir`, keyed by another column, with how each file declares it. */
async function readColumn(dir: string, column: string, keys: readonly string[]): Promise<ColumnRead> {
  const types = new Set<string>();
  const values = new Map<string, unknown>();
  for (const path of parquetFiles(dir)) {
    const file = await asyncBufferFromFile(path);
    const metadata = await parquetMetadataAsync(file);
    const element = metadata.schema.find((e) => e.name === column);
    types.add(`${element?.type} ${element?.converted_type} ${element?.logical_type?.type ?? '-'}`);
    for (const row of await parquetReadObjects({ file, columns: [...keys, column] })) {
      values.set(keys.map((k) => String(row[k])).join('|'), row[column]);
    }
  }
  return { types, values };
}

/** The same column as DuckDB's text, keyed the same way. */
async function storedText(sql: string): Promise<Map<string, string | null>> {
  const reader = await openReadOnly(db);
  try {
    const rows = await reader.all<{ k: string; v: string | null }>(sql);
    return new Map(rows.map((r) => [r.k, r.v]));
  } finally {
    await reader.close();
  }
}

async function expectStrings(dir: string, column: string, keys: readonly string[], sql: string) {
  const read = await readColumn(dir, column, keys);
  // A string column (BYTE_ARRAY, UTF8), not Parquet's JSON type, which pyarrow and polars read as bytes.
  expect([...read.types], column).toEqual(['BYTE_ARRAY UTF8 -']);
  const stored = await storedText(sql);
  expect(read.values.size, column).toBe(stored.size);
  expect(
    [...stored.values()].some((v) => v !== null),
    column,
  ).toBe(true);
  for (const [key, text] of stored) expect(read.values.get(key), `${column} of ${key}`).toBe(text);
}

describe('Parquet JSON columns read as strings outside DuckDB', () => {
  test('export: the jobs JSON columns and module results', async () => {
    const out = join(tempDir(), 'export');
    expect((await runCommand(exportCommand, ['--out', out, '--db', db])).error).toBeUndefined();
    for (const column of JOB_JSON) {
      await expectStrings(
        join(out, 'jobs'),
        column,
        ['id'],
        `SELECT id AS k, CAST(${column} AS VARCHAR) AS v FROM jobs`,
      );
    }
    await expectStrings(
      join(out, 'module_results'),
      'results',
      ['job_id', 'module'],
      "SELECT job_id || '|' || module AS k, CAST(results AS VARCHAR) AS v FROM module_results",
    );
  });

  test('publish with raw: the jobs JSON columns, raw and module results', async () => {
    const dir = join(tempDir(), 'published');
    const database = await openReadOnly(db);
    try {
      await publishDataset({ db: database, dir, raw: true });
    } finally {
      await database.close();
    }
    for (const column of [...JOB_JSON, 'raw']) {
      await expectStrings(
        join(dir, 'jobs'),
        column,
        ['id'],
        `SELECT id AS k, CAST(${column} AS VARCHAR) AS v FROM jobs JOIN job_records ON job_id = id`,
      );
    }
    await expectStrings(
      join(dir, 'module_results'),
      'results',
      ['job_id', 'module'],
      "SELECT job_id || '|' || module AS k, CAST(results AS VARCHAR) AS v FROM module_results",
    );
  });

  test('a dataset published with JSON-typed files (manifest version 1) is rewritten whole', async () => {
    const dir = join(tempDir(), 'upgraded');
    const database = await openReadOnly(db);
    try {
      await publishDataset({ db: database, dir });
      const path = join(dir, '_manifest.json');
      writeFileSync(path, readFileSync(path, 'utf8').replace('"version": 3', '"version": 1'));
      const again = await publishDataset({ db: database, dir });
      expect(again.unchanged).toBe(0);
      expect(again.written).toBeGreaterThan(0);
    } finally {
      await database.close();
    }
  });
});

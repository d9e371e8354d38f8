import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, test } from 'vitest';
import { exportParquet } from '../../../src/analytics/publish/export-parquet.js';
import type { Reader } from '../../../src/analytics/read/reader.js';
import { command as exportCommand } from '../../../src/cli/commands/export.js';
import { command as queryCommand } from '../../../src/cli/commands/query.js';
import { ConfigError } from '../../../src/errors.js';
import type { JobRecord } from '../../../src/simulator/index.js';
import { sqlPathLiteral } from '../../../src/util/sql-literal.js';
import { craftJob, loadedDatabase, runCommand, smallDataset } from '../../helpers/analytics-data.js';
import { utteranceLists } from '../../helpers/mirror.js';
import { tempDir } from '../../helpers/tmp.js';

const generated = smallDataset(53, 40);
const records: JobRecord[] = [
  ...generated,
  craftJob(generated, { id: 'first-of-december', kind: 'live', createdAt: '2026-12-01T00:00:00.000Z' }),
  craftJob(generated, { id: 'gone-upstream', kind: 'pre-recorded', createdAt: '2026-10-10T10:00:00.000Z' }),
];
const visible = records.filter((r) => r['id'] !== 'gone-upstream');

const db = loadedDatabase('analytics-export', records, { deleted: ['gone-upstream'] });

/** Row counts per `kind|month` of an exported table, read back by DuckDB from the Parquet files. */
async function parquetCounts(dir: string): Promise<Map<string, number>> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(
      `SELECT kind, month, count(*) AS n FROM read_parquet(${sqlPathLiteral(join(dir, '**', '*.parquet'), 'test')}, hive_partitioning = true) GROUP BY ALL`,
    );
    return new Map(reader.getRowObjectsJS().map((r) => [`${r['kind']}|${r['month']}`, Number(r['n'])]));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

function expectedCounts(items: readonly JobRecord[], weight: (r: JobRecord) => number): Map<string, number> {
  const out = new Map<string, number>();
  for (const record of items) {
    const key = `${record['kind']}|${String(record['created_at']).slice(0, 7)}`;
    const n = weight(record);
    if (n > 0) out.set(key, (out.get(key) ?? 0) + n);
  }
  return out;
}

const utterancesOf = (r: JobRecord) => utteranceLists(r).reduce((sum, list) => sum + list.length, 0);
const wordsOf = (r: JobRecord) =>
  utteranceLists(r).reduce(
    (sum, list) => sum + list.reduce((s, u) => s + (Array.isArray(u['words']) ? u['words'].length : 0), 0),
    0,
  );

describe('export', () => {
  test('writes Parquet partitioned by kind and month that DuckDB reads back with the same counts', async () => {
    const out = join(tempDir(), "finance's export");
    const outcome = await runCommand(exportCommand, ['--out', out, '--db', db]);
    expect(outcome.error).toBeUndefined();
    expect(readdirSync(out).sort()).toEqual(['jobs', 'module_results', 'utterances', 'words']);
    expect(readdirSync(join(out, 'jobs')).sort()).toEqual(['kind=live', 'kind=pre-recorded']);
    expect(readdirSync(join(out, 'jobs', 'kind=live'))).toContain('month=2026-12');

    expect(await parquetCounts(join(out, 'jobs'))).toEqual(expectedCounts(visible, () => 1));
    expect(await parquetCounts(join(out, 'utterances'))).toEqual(expectedCounts(visible, utterancesOf));
    expect(await parquetCounts(join(out, 'words'))).toEqual(expectedCounts(visible, wordsOf));
    const modules = await parquetCounts(join(out, 'module_results'));
    const stored = await runCommand(queryCommand, [
      'SELECT count(*) AS n FROM module_results WHERE job_id IN (SELECT id FROM jobs WHERE deleted_at IS NULL)',
      '--db',
      db,
      '--format',
      'json',
    ]);
    const storedModules = Number((JSON.parse(stored.stdout) as { n: number }[])[0]?.n);
    expect(storedModules).toBeGreaterThan(0);
    expect([...modules.values()].reduce((a, b) => a + b, 0)).toBe(storedModules);

    const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    expect(outcome.stdout).toMatch(new RegExp(`^jobs\\s+${visible.length} rows`, 'm'));
    expect(outcome.stdout).toMatch(
      new RegExp(`^words\\s+${total(expectedCounts(visible, wordsOf))} rows`, 'm'),
    );
  });

  test('--include-deleted also exports jobs no longer listed upstream', async () => {
    const out = tempDir();
    expect((await runCommand(exportCommand, ['--out', out, '--db', db, '--include-deleted'])).code).toBe(0);
    expect(await parquetCounts(join(out, 'jobs'))).toEqual(expectedCounts(records, () => 1));
  });

  test('refuses to replace a previous export unless --overwrite, and leaves it whole', async () => {
    const out = tempDir();
    expect((await runCommand(exportCommand, ['--out', out, '--db', db])).code).toBe(0);
    const again = await runCommand(exportCommand, ['--out', out, '--db', db, '--include-deleted']);
    expect(again.code).toBe(2);
    expect(again.error).toBeInstanceOf(ConfigError);
    expect(again.error?.message).toContain('--out');
    expect(await parquetCounts(join(out, 'jobs'))).toEqual(expectedCounts(visible, () => 1));

    expect(
      (await runCommand(exportCommand, ['--out', out, '--db', db, '--include-deleted', '--overwrite'])).code,
    ).toBe(0);
    expect(await parquetCounts(join(out, 'jobs'))).toEqual(expectedCounts(records, () => 1));
    expect(readdirSync(out).sort()).toEqual(['jobs', 'module_results', 'utterances', 'words']);
  });

  test('a failed export removes the folders it made for --out, and only those', async () => {
    const failing = {
      copyParquet: () => Promise.reject(new Error('disk full')),
    } as unknown as Reader;
    const parent = tempDir();
    await expect(exportParquet({ db: failing, outDir: join(parent, 'made', 'exported') })).rejects.toThrow(
      'disk full',
    );
    expect(readdirSync(parent)).toEqual([]);
    await expect(exportParquet({ db: failing, outDir: parent })).rejects.toThrow('disk full');
    expect(readdirSync(join(parent, '..'))).toContain(basename(parent));
  });

  test('--out is required', async () => {
    const outcome = await runCommand(exportCommand, ['--db', db]);
    expect(outcome.code).toBe(2);
    expect(outcome.error?.message).toContain('--out');
  });

  test('the path literal doubles single quotes and refuses relative paths and control characters', () => {
    expect(sqlPathLiteral("/tmp/it's", '--out')).toBe("'/tmp/it''s'");
    expect(() => sqlPathLiteral('relative/dir', '--out')).toThrow(ConfigError);
    expect(() => sqlPathLiteral('/tmp/a\nb', '--out')).toThrow(/control characters/);
  });
});

/**
 * The load path where DuckDB parses the records (src/extract scan, src/normalize/page-records.ts,
 * src/load and sql/load/) against the path where JavaScript parsed and mapped them (src/api
 * list-body, src/normalize/normalize.ts, src/store/loader.ts): the same pages through both leave
 * every table equal, row for row. JSON columns are compared as values (one path writes
 * JSON.stringify's text, the other DuckDB's); `raw` is compared as text.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { itemTexts } from '../src/api/item-texts.js';
import { scanListBody } from '../src/extract/json-scan.js';
import { RecordLoader } from '../src/load/record-loader.js';
import { loadSql } from '../src/load/sql-files.js';
import { normalizeRecords } from '../src/normalize/normalize.js';
import { normalizeItems } from '../src/normalize/page-records.js';
import { RECORD_SHAPE } from '../src/normalize/record-shape.js';
import { generateDataset, type JobRecord } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { JobLoader } from '../src/store/loader.js';
import { allFixtures } from './fixtures/fixtures.js';
import { fileTempDir } from './helpers/analytics-data.js';
import { batchArb } from './helpers/mutate-record.js';

const folder = fileTempDir('tsync-load-equality-');
afterAll(() => folder.remove());
const SYNCED_AT = new Date('2026-11-20T10:00:00.000Z');

const TABLES = [
  ['jobs', 'id', 'synced_at'],
  ['utterances', 'job_id, source, utterance_idx', ''],
  ['words', 'job_id, source, utterance_idx, word_idx', ''],
  ['module_results', 'job_id, module, results::VARCHAR', ''],
  ['quarantine', 'raw_hash', 'first_seen_at, last_seen_at'],
] as const;
const JSON_COLUMNS = new Set([
  'custom_metadata',
  'post_session_metadata',
  'request_params',
  'results',
  'errors',
]);

function page(items: readonly unknown[]): string {
  return JSON.stringify({ first: null, current: null, next: null, items });
}

type Step = { readonly pages: readonly string[] } | { readonly deleteAll: true };

let files = 0;
/** Runs `steps` through both paths, each into a file of its own, and returns every table of both. */
async function throughBoth(steps: readonly Step[]) {
  files += 1;
  const before = await Database.open(join(folder.dir, `js-${files}.duckdb`));
  const after = await Database.open(join(folder.dir, `duckdb-${files}.duckdb`));
  try {
    await after.run(loadSql('stage-create'));
    const jsLoader = new JobLoader(before);
    const duckLoader = new RecordLoader(after);
    for (const step of steps) {
      if ('deleteAll' in step) {
        for (const db of [before, after]) await db.run('UPDATE jobs SET deleted_at = $at', { at: SYNCED_AT });
        continue;
      }
      for (const text of step.pages) {
        const items = (JSON.parse(text) as { items: unknown[] }).items;
        await jsLoader.load(normalizeRecords(items, itemTexts(text, items.length)), { syncedAt: SYNCED_AT });
        const body = Buffer.from(text);
        const records = normalizeItems(body, scanListBody(body, RECORD_SHAPE).items);
        await duckLoader.load(records, SYNCED_AT);
      }
    }
    const tables: Record<string, { before: unknown[]; after: unknown[] }> = {};
    for (const [table, order, left] of TABLES) {
      const sql = `SELECT * ${left ? `EXCLUDE (${left})` : ''} FROM ${table} ORDER BY ${order}`;
      tables[table] = { before: values(await before.all(sql)), after: values(await after.all(sql)) };
    }
    return tables;
  } finally {
    await before.close();
    await after.close();
  }
}

function values(rows: readonly Record<string, unknown>[]): unknown[] {
  return rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([name, value]) => [
        name,
        JSON_COLUMNS.has(name) && typeof value === 'string' ? JSON.parse(value) : value,
      ]),
    ),
  );
}

async function expectEqual(steps: readonly Step[]): Promise<Record<string, number>> {
  const tables = await throughBoth(steps);
  const counts: Record<string, number> = {};
  for (const [table, { before, after }] of Object.entries(tables)) {
    expect(after, table).toEqual(before);
    counts[table] = before.length;
  }
  return counts;
}

function pagesOf(records: readonly unknown[], perPage: number): string[] {
  const pages: string[] = [];
  for (let i = 0; i < records.length; i += perPage) pages.push(page(records.slice(i, i + perPage)));
  return pages;
}

/** A changed copy of each record: another status and metadata, one utterance fewer. */
function edited(records: readonly JobRecord[]): JobRecord[] {
  return records.map((record, i) => {
    const copy = structuredClone(record) as JobRecord & Record<string, unknown>;
    copy['custom_metadata'] = { edited: i, note: 'naïve “quotes”' };
    const utterances = (copy['result'] as { transcription?: { utterances?: unknown[] } } | null)
      ?.transcription?.utterances;
    utterances?.pop();
    return copy;
  });
}

describe('the DuckDB load path against the JavaScript one', () => {
  it('leaves the same tables for the simulator: both kinds, every module, translations, ties', async () => {
    const records = generateDataset({
      seed: 5,
      preRecorded: 150,
      live: 150,
      utterancesPerJob: 8,
      wordsPerUtterance: 6,
    });
    // Ties: a third of the jobs share their created_at with another.
    for (let i = 0; i + 1 < records.length; i += 3)
      (records[i + 1] as Record<string, unknown>)['created_at'] = records[i]?.created_at;
    const counts = await expectEqual([{ pages: pagesOf(records, 40) }]);
    expect(counts['words']).toBeGreaterThan(10_000);
    expect(counts['module_results']).toBeGreaterThan(500);
  });

  it('leaves the same tables when jobs change, repeat, are deleted and come back', async () => {
    const records = generateDataset({
      seed: 9,
      preRecorded: 40,
      live: 40,
      utterancesPerJob: 4,
      wordsPerUtterance: 5,
    });
    const changed = edited(records.slice(0, 30));
    await expectEqual([
      { pages: pagesOf(records, 25) },
      // Repeats within a page (the last copy wins) and across pages.
      { pages: [page([...changed.slice(0, 10), ...records.slice(0, 10)]), page(changed)] },
      { deleteAll: true },
      { pages: pagesOf([...records.slice(40), ...changed.slice(0, 5)], 20) },
    ]);
  });

  it('leaves the same tables for huge records and the hand-written fixtures', async () => {
    const huge = generateDataset({
      seed: 3,
      preRecorded: 2,
      live: 1,
      utterancesPerJob: 1_500,
      wordsPerUtterance: 20,
    });
    const counts = await expectEqual([{ pages: [page(huge), page(allFixtures())] }]);
    expect(counts['words']).toBeGreaterThan(40_000);
  });

  it('leaves the same tables and quarantine for mutated records and junk', async () => {
    const bases = generateDataset({
      seed: 41,
      preRecorded: 10,
      live: 10,
      utterancesPerJob: 3,
      wordsPerUtterance: 3,
    });
    const pages: string[] = [];
    fc.assert(
      fc.property(batchArb(bases), (make) => {
        pages.push(page(make(`b${pages.length}`)));
      }),
      { numRuns: 120, seed: 20261125 },
    );
    const counts = await expectEqual([{ pages }]);
    expect(counts['quarantine']).toBeGreaterThan(50);
    expect(counts['jobs']).toBeGreaterThan(50);
  });
});

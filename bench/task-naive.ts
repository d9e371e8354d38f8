/**
 * Child task, the naive loader: what a straightforward implementation does. The first `jobs`
 * records of the NDJSON are parsed, validated and mapped to rows exactly like the loader does, then
 * written with one prepared INSERT per row (one transaction). The bench extrapolates the time to
 * the whole dataset by row count.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { DuckDBConnection, DuckDBType } from '@duckdb/node-api';
import { contentHash } from '../src/normalize/content-hash.js';
import { instantMicros } from '../src/normalize/instant.js';
import { JobRows } from '../src/normalize/job-rows.js';
import { TableBatch } from '../src/normalize/table-batch.js';
import { validateJobRecord } from '../src/records/validate.js';
import { Database } from '../src/store/database.js';
import { duckValueOf } from '../src/store/values.js';
import { countRecord, emptyCounts, type RowCounts } from './record-counts.js';

export interface NaiveOptions {
  readonly ndjson: string;
  readonly db: string;
  /** Records to load, from the start of the file. */
  readonly jobs: number;
}

export interface NaiveResult {
  readonly wallMs: number;
  readonly counts: RowCounts;
  /** Rows inserted, module results included. */
  readonly inserted: number;
}

async function firstLines(path: string, count: number): Promise<string[]> {
  const lines: string[] = [];
  const reader = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of reader) {
    if (line.trim() === '') continue;
    lines.push(line);
    if (lines.length >= count) break;
  }
  reader.close();
  return lines;
}

const WORD_COLUMNS = [
  'job_id',
  'source',
  'utterance_idx',
  'word_idx',
  'word',
  'start',
  'end',
  'confidence',
] as const;

/** The loader stages words with a list number (src/normalize/job-rows.ts); the naive loader writes words rows. */
function wordRows(rows: JobRows): TableBatch<typeof WORD_COLUMNS> {
  const words = new TableBatch('words', WORD_COLUMNS);
  const lists = rows.lists.columns;
  const w = rows.words.columns();
  const orNull = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? null : value);
  for (let i = 0; i < rows.words.rowCount; i++) {
    const list = w.list[i] as number;
    words.push({
      job_id: lists.job_id[list] ?? null,
      source: lists.source[list] ?? null,
      utterance_idx: w.utterance_idx[i] ?? null,
      word_idx: w.word_idx[i] ?? null,
      word: rows.dict.columns.word[w.word_key[i] as number] ?? null,
      start: orNull(w.start[i]),
      end: orNull(w.end[i]),
      confidence: orNull(w.confidence[i]),
    });
  }
  return words;
}

async function insertRowByRow(
  connection: DuckDBConnection,
  batch: TableBatch<readonly string[]>,
): Promise<number> {
  const placeholders = batch.names.map((_, i) => `$${i + 1}`).join(', ');
  const columns = batch.names.map((name) => `"${name}"`).join(', ');
  const statement = await connection.prepare(
    `INSERT INTO ${batch.table} (${columns}) VALUES (${placeholders})`,
  );
  try {
    const types: DuckDBType[] = batch.names.map((_, i) => statement.parameterType(i + 1));
    const columns = batch.names.map((name) => batch.columns[name] ?? []);
    for (let row = 0; row < batch.rowCount; row++) {
      statement.bind(
        columns.map((column, i) => duckValueOf(column[row] ?? null, types[i] as DuckDBType)),
        types,
      );
      await statement.run();
    }
    return batch.rowCount;
  } finally {
    statement.destroySync();
  }
}

export async function runNaive(options: NaiveOptions): Promise<NaiveResult> {
  const lines = await firstLines(options.ndjson, options.jobs);
  const db = await Database.open(options.db);
  try {
    const counts = emptyCounts();
    const started = performance.now();
    const rows = new JobRows();
    const synced = instantMicros(new Date().toISOString());
    for (const line of lines) {
      const raw: unknown = JSON.parse(line);
      countRecord(raw, counts);
      const checked = validateJobRecord(raw);
      if (!checked.ok)
        throw new Error(`record ${checked.id ?? '?'} is invalid: ${checked.errors[0]?.message}`);
      const text = JSON.stringify(raw);
      rows.add({ record: checked.record, raw: text, hash: contentHash(text) }, synced);
    }
    let inserted = 0;
    await db.transaction(async () => {
      for (const batch of [rows.jobs, rows.utterances, wordRows(rows), rows.modules]) {
        inserted += await insertRowByRow(db.connection, batch as unknown as TableBatch<readonly string[]>);
      }
    });
    return { wallMs: performance.now() - started, counts, inserted };
  } finally {
    await db.close();
  }
}

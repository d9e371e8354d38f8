/**
 * Child task, the naive loader: what a straightforward implementation does. The first `jobs`
 * records of the NDJSON are parsed and validated in JavaScript, and their jobs, utterances and words
 * rows written with one prepared INSERT per row (one transaction). The bench extrapolates the time
 * to the whole dataset by row count.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { DuckDBPreparedStatement, DuckDBValue } from '@duckdb/node-api';
import { contentHash, validateJobRecord } from '../src/normalize/page-records.js';
import { openWriter } from '../src/store/open-file.js';
import { countRecord, emptyCounts, type RowCounts, utteranceLists } from './record-counts.js';

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

type Json = Record<string, unknown>;

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Json)[key] : undefined;
}

function orNull(value: unknown): DuckDBValue {
  return value === undefined ? null : (value as DuckDBValue);
}

export async function runNaive(options: NaiveOptions): Promise<NaiveResult> {
  const lines = await firstLines(options.ndjson, options.jobs);
  const db = await openWriter(options.db);
  const statements: DuckDBPreparedStatement[] = [];
  const prepare = async (sql: string) => {
    const statement = await db.prepare(sql);
    statements.push(statement);
    return statement;
  };
  try {
    const counts = emptyCounts();
    const started = performance.now();
    let inserted = 0;
    await db.transaction(async () => {
      const job = await prepare(
        'INSERT INTO jobs (id, kind, status, created_at, content_hash, synced_at) VALUES ($1, $2, $3, $4::TIMESTAMPTZ, $5, now())',
      );
      const record = await prepare(
        'INSERT INTO job_records (job_id, job_created_at, raw) VALUES ($1, $2::TIMESTAMPTZ, $3)',
      );
      const utterance = await prepare(
        'INSERT INTO utterances (job_id, source, utterance_idx, start, "end", text) VALUES ($1, $2, $3, $4, $5, $6)',
      );
      const word = await prepare(
        'INSERT INTO words (job_id, source, utterance_idx, word_idx, word, start, "end", confidence) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      );
      for (const line of lines) {
        const raw: unknown = JSON.parse(line);
        countRecord(raw, counts);
        const checked = validateJobRecord(raw);
        if (!checked.ok)
          throw new Error(`record ${checked.id ?? '?'} is invalid: ${checked.errors[0]?.message}`);
        const { id, kind, status, created_at } = checked.record;
        job.bind([id, kind, status, created_at, contentHash(line)]);
        await job.run();
        record.bind([id, created_at, line]);
        await record.run();
        inserted += 1;
        for (const [l, list] of utteranceLists(raw as Json).entries()) {
          const source = `list:${l}`;
          for (const [u, item] of list.entries()) {
            utterance.bind([
              id,
              source,
              u,
              orNull(field(item, 'start')),
              orNull(field(item, 'end')),
              orNull(field(item, 'text')),
            ]);
            await utterance.run();
            inserted += 1;
            const words = field(item, 'words');
            for (const [w, each] of (Array.isArray(words) ? words : []).entries()) {
              word.bind([
                id,
                source,
                u,
                w,
                orNull(field(each, 'word')),
                orNull(field(each, 'start')),
                orNull(field(each, 'end')),
                orNull(field(each, 'confidence')),
              ]);
              await word.run();
              inserted += 1;
            }
          }
        }
      }
    });
    return { wallMs: performance.now() - started, counts, inserted };
  } finally {
    for (const statement of statements) statement.destroySync();
    await db.close();
  }
}

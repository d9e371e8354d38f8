import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publishDataset } from '../../../src/analytics/publish/publish.js';
import { generateDataset } from '../../../src/simulator/index.js';
import { openWriter } from '../../../src/store/open-file.js';
import { PARTITIONS_PER_COPY } from '../../../src/store/statements/parquet-copy.js';
import { loadRecords, writeSql } from '../../helpers/analytics-data.js';
import { tempDir } from '../../helpers/tmp.js';

/**
 * 84 jobs, 66 of them with words: given a month each (below), 66 (kind, month) partitions with
 * words, more than four COPYs of PARTITIONS_PER_COPY (16) write.
 */
const records = generateDataset({
  seed: 64,
  preRecorded: 42,
  live: 42,
  utterancesPerJob: 1,
  wordsPerUtterance: 2,
});

interface Manifest {
  tables: Record<
    string,
    { rows: number; partitions: { kind: string; month: string; rows: number; file: string | null }[] }
  >;
}

describe('a first publish of a long history', () => {
  it('writes every partition, each one file, at most PARTITIONS_PER_COPY partitions per COPY', async () => {
    const path = join(tempDir(), 'long.duckdb');
    await loadRecords(path, records);
    // A month of its own for each job with words: more (kind, month) partitions with words than
    // four COPYs write. Jobs without words share the first.
    await writeSql(
      path,
      `UPDATE jobs SET created_at = TIMESTAMPTZ '2015-01-01 00:00:00+00' + to_months(CAST(r.month AS INTEGER))
       FROM (SELECT id AS rid,
                    CASE WHEN has_words THEN row_number() OVER (PARTITION BY kind, has_words ORDER BY id) ELSE 0 END AS month
             FROM (SELECT id, kind, id IN (SELECT job_id FROM words) AS has_words FROM jobs)) AS r
       WHERE jobs.id = r.rid`,
    );
    const dir = join(tempDir(), 'published');
    const db = await openWriter(path);
    let expected: { kind: string; month: string; n: number }[];
    try {
      expected = await db.all(
        "SELECT j.kind, strftime(j.created_at AT TIME ZONE 'UTC', '%Y-%m') AS month, count(*) AS n FROM words w JOIN jobs j ON j.id = w.job_id GROUP BY ALL ORDER BY ALL",
      );
      expect(expected.length).toBeGreaterThan(4 * PARTITIONS_PER_COPY);
      // Every statement the publish runs, on the real file underneath.
      const copies: number[] = [];
      const recording = {
        path: db.path,
        all: <T>(sql: string, params?: Record<string, unknown>) => {
          if (sql.startsWith('COPY') && sql.includes('PARTITION_BY')) {
            copies.push(
              (params?.['partitions'] as unknown[] | undefined)?.length ?? Number.POSITIVE_INFINITY,
            );
          }
          return db.all<T>(sql, params as never);
        },
      };
      await publishDataset({ db: recording, dir });
      // DuckDB holds an open writer per partition of a COPY: the partitions go in full batches.
      expect(copies).toContain(PARTITIONS_PER_COPY);
      expect(Math.max(...copies)).toBeLessThanOrEqual(PARTITIONS_PER_COPY);
    } finally {
      await db.close();
    }
    const manifest = JSON.parse(readFileSync(join(dir, '_manifest.json'), 'utf8')) as Manifest;
    // A partition of jobs without words (queued, failed) is listed with no rows and no file.
    const words = (manifest.tables['words']?.partitions ?? []).filter((p) => p.rows > 0);
    expect(words.map((p) => ({ kind: p.kind, month: p.month, n: p.rows }))).toEqual(expected);
    for (const p of words) {
      const files = readdirSync(join(dir, 'words', `kind=${p.kind}`, `month=${p.month}`));
      expect(files).toEqual(['data_0.parquet']);
    }
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publishDataset } from '../../../src/analytics/publish/publish.js';
import { generateDataset } from '../../../src/simulator/index.js';
import { withReadingMemory } from '../../../src/store/file/reading-memory.js';
import { openWriter } from '../../../src/store/open-file.js';
import { loadRecords } from '../../helpers/analytics-data.js';
import { tempDir } from '../../helpers/tmp.js';

const MiB = 2 ** 20;

/** Module results added to each job, each `results` a JSON string of RESULT_CHARS characters. */
const ROWS_PER_JOB = 6_000;
/** ~2 KB, as measured in the module results of the bench's accounts (BENCHMARKS.md, "Scale"). */
const RESULT_CHARS = 2_048;
/** The smallest limit a reading is given (MIN_LIMIT_BYTES in src/memory/reader-memory.ts). */
const POOL = 64 * MiB;

interface Manifest {
  tables: Record<string, { rows: number; partitions: { kind: string; month: string; rows: number }[] }>;
}

describe('a publish of wide rows in several partitions', () => {
  it('writes 6 partitions of 12 MB of module results each in a pool of 64 MiB', async () => {
    const path = join(tempDir(), 'wide-partitions.duckdb');
    await loadRecords(
      path,
      generateDataset({ seed: 37, preRecorded: 3, live: 3, utterancesPerJob: 1, wordsPerUtterance: 2 }),
    );
    // One job of each kind in each of 3 months: 6 (kind, month) partitions, each ~12 MB of rows
    // more than DuckDB's vector of 2,048 rows, all written by the first publish.
    const writer = await openWriter(path);
    try {
      await writer.run(
        `UPDATE jobs SET created_at = TIMESTAMPTZ '2025-01-15 00:00:00+00'
           - to_months(CAST(rank - 1 AS INTEGER))
         FROM (SELECT id AS rid, row_number() OVER (PARTITION BY kind ORDER BY id) AS rank FROM jobs) AS r
         WHERE jobs.id = r.rid`,
      );
      for (let from = 0; from < ROWS_PER_JOB; from += 2_000) {
        await writer.run(
          `INSERT INTO module_results (job_id, module, success, results)
           SELECT j.id, 'wide_' || i, true, to_json(repeat(md5(j.id || CAST(i AS VARCHAR)), ${RESULT_CHARS / 32}))
           FROM jobs AS j, range(${from}, ${from + 2_000}) AS t(i)`,
        );
      }
    } finally {
      await writer.close();
    }
    const dir = join(tempDir(), 'published');
    const db = await openWriter(path);
    let expected: { kind: string; month: string; n: number }[];
    try {
      expected = await db.all(
        `SELECT j.kind, strftime(j.created_at AT TIME ZONE 'UTC', '%Y-%m') AS month, CAST(count(*) AS INTEGER) AS n
         FROM module_results AS c JOIN jobs AS j ON j.id = c.job_id GROUP BY ALL ORDER BY ALL`,
      );
      await withReadingMemory(db, { memoryLimit: POOL }, () => publishDataset({ db, dir }));
    } finally {
      await db.close();
    }
    expect(expected).toHaveLength(6);
    const manifest = JSON.parse(readFileSync(join(dir, '_manifest.json'), 'utf8')) as Manifest;
    const written = manifest.tables['module_results']?.partitions.map(({ kind, month, rows }) => ({
      kind,
      month,
      n: rows,
    }));
    expect(written).toEqual(expected);
  }, 180_000);
});

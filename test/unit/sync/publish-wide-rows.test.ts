import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publishDataset } from '../../../src/analytics/publish/publish.js';
import { MEMORY_FLOOR } from '../../../src/memory/budget.js';
import { planReaderMemory } from '../../../src/memory/reader-memory.js';
import { generateDataset } from '../../../src/simulator/index.js';
import { withReadingMemory } from '../../../src/store/file/reading-memory.js';
import { openWriter } from '../../../src/store/open-file.js';
import { loadRecords } from '../../helpers/analytics-data.js';
import { tempDir } from '../../helpers/tmp.js';

const MiB = 2 ** 20;

/** Module results added to one job, each `results` a JSON string of RESULT_CHARS characters. */
const WIDE_ROWS = 28_000;
/** ~2 KB, as measured in the module results of the bench's accounts (BENCHMARKS.md, "Scale"). */
const RESULT_CHARS = 2_048;

describe('a publish of wide rows', () => {
  it('writes a partition of 57 MB of module results in the memory of a reading that writes Parquet', async () => {
    const path = join(tempDir(), 'wide.duckdb');
    await loadRecords(
      path,
      generateDataset({ seed: 35, preRecorded: 4, live: 0, utterancesPerJob: 1, wordsPerUtterance: 2 }),
    );
    // One partition whose module results take ~57 MB in memory: one row group of them is more
    // than the limit, so the Parquet writer must cut the partition into smaller ones.
    const writer = await openWriter(path);
    try {
      for (let from = 0; from < WIDE_ROWS; from += 4_000) {
        await writer.run(
          `INSERT INTO module_results (job_id, module, success, results)
           SELECT (SELECT min(id) FROM jobs), 'wide_' || i, true, to_json(repeat(md5(CAST(i AS VARCHAR)), ${RESULT_CHARS / 32}))
           FROM range(${from}, ${from + 4_000}) AS t(i)`,
        );
      }
    } finally {
      await writer.close();
    }
    const dir = join(tempDir(), 'published');
    const db = await openWriter(path);
    let expected: number;
    try {
      const [row] = await db.all<{ n: number }>('SELECT count(*) AS n FROM module_results');
      expected = Number(row?.n);
      // The memory the publish after a sync reads in at the smallest budget (64 MiB at 192 MB).
      const reading = planReaderMemory(MEMORY_FLOOR, path, { writesParquet: true });
      expect(reading.memoryLimit).toBe(64 * MiB);
      await withReadingMemory(db, reading, () => publishDataset({ db, dir }));
    } finally {
      await db.close();
    }
    const manifest = JSON.parse(readFileSync(join(dir, '_manifest.json'), 'utf8')) as {
      tables: Record<string, { rows: number }>;
    };
    expect(expected).toBeGreaterThan(WIDE_ROWS);
    expect(manifest.tables['module_results']?.rows).toBe(expected);
  }, 120_000);
});

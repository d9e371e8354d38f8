import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publishDataset } from '../../../src/analytics/publish/publish.js';
import { serveReads } from '../../../src/analytics/read/read-server.js';
import { connectWriter } from '../../../src/analytics/read/reader.js';
import { silentLogger } from '../../../src/log.js';
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

/** A file whose one partition holds ~57 MB of module results: one row group of them is more than a limit. */
async function wideFile(): Promise<{ path: string; rows: number }> {
  const path = join(tempDir(), 'wide.duckdb');
  await loadRecords(
    path,
    generateDataset({ seed: 35, preRecorded: 4, live: 0, utterancesPerJob: 1, wordsPerUtterance: 2 }),
  );
  const writer = await openWriter(path);
  try {
    for (let from = 0; from < WIDE_ROWS; from += 4_000) {
      await writer.run(
        `INSERT INTO module_results (job_id, module, success, results)
         SELECT (SELECT min(id) FROM jobs), 'wide_' || i, true, to_json(repeat(md5(CAST(i AS VARCHAR)), ${RESULT_CHARS / 32}))
         FROM range(${from}, ${from + 4_000}) AS t(i)`,
      );
    }
    const [row] = await writer.all<{ n: number }>('SELECT count(*) AS n FROM module_results');
    return { path, rows: Number(row?.n) };
  } finally {
    await writer.close();
  }
}

describe('wide rows written as Parquet', () => {
  it('writes a partition of 57 MB of module results in the memory of a reading that writes Parquet', async () => {
    // The Parquet writer must cut the partition into row groups smaller than the limit.
    const { path, rows: expected } = await wideFile();
    const dir = join(tempDir(), 'published');
    const db = await openWriter(path);
    try {
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

  it('exports them through the socket of a writer that holds the file, within its memory', async () => {
    const { path, rows } = await wideFile();
    const db = await openWriter(path);
    const reads = await serveReads(db, { logger: silentLogger });
    try {
      const reader = await connectWriter(db.path);
      expect(reader).toBeDefined();
      const out = join(tempDir(), 'exported');
      const target = { path: out, partitionBy: ['kind', 'month'], setting: '--out' };
      expect(await reader?.copyParquet('module_results', { include_deleted: false }, target)).toBe(rows);
    } finally {
      await reads.close();
      await db.close();
    }
  }, 120_000);
});

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RowSource } from '../../../src/store/database.js';
import { openReadOnly, openWriter } from '../../../src/store/open-file.js';
import { copyDataset, JOB_JOIN_BYTES } from '../../../src/store/statements/datasets.js';
import { PARTITIONS_PER_COPY, partitionBatches } from '../../../src/store/statements/parquet-copy.js';
import { sqlPathLiteral } from '../../../src/util/sql-literal.js';
import { migratedDb } from '../../helpers/migrated-db.js';
import { tempDir } from '../../helpers/tmp.js';

describe('batches of partitions for a COPY of job rows', () => {
  it('keeps the order and cuts before a batch would pass the jobs or the partitions allowed', () => {
    const jobs = new Map([
      ['live|2025-01', 40],
      ['live|2025-02', 30],
      ['live|2025-03', 50],
      ['live|2025-04', 10],
    ]);
    expect(partitionBatches([...jobs.keys()], jobs, 80)).toEqual([
      ['live|2025-01', 'live|2025-02'],
      ['live|2025-03', 'live|2025-04'],
    ]);
  });

  it('puts a partition of more jobs than allowed in a batch of its own, and counts unknown ones as none', () => {
    const jobs = new Map([
      ['a|1', 5],
      ['a|2', 500],
      ['a|3', 5],
    ]);
    expect(partitionBatches(['a|1', 'a|2', 'a|3', 'a|4'], jobs, 100)).toEqual([
      ['a|1'],
      ['a|2'],
      ['a|3', 'a|4'],
    ]);
  });

  it('takes at most PARTITIONS_PER_COPY partitions however few their jobs', () => {
    const keys = Array.from({ length: PARTITIONS_PER_COPY * 2 + 1 }, (_, i) => `k|${i}`);
    const sizes = partitionBatches(keys, new Map(), 1_000_000).map((b) => b.length);
    expect(sizes).toEqual([PARTITIONS_PER_COPY, PARTITIONS_PER_COPY, 1]);
  });
});

describe('a partitioned copy of words under a small memory_limit', () => {
  it('joins a batch of jobs at a time and still writes every word once, one file a partition', async () => {
    // 6 partitions (2 kinds x 3 months) of 6,000 jobs, one or two words each: at 16 MiB a COPY
    // may join 16,384 jobs, so two partitions a COPY.
    const path = await migratedDb('batches.duckdb');
    const writer = await openWriter(path);
    try {
      await writer.run(`
        INSERT INTO jobs (id, kind, status, created_at, content_hash, synced_at)
        SELECT 'job-' || i,
               CASE WHEN i % 2 = 0 THEN 'live' ELSE 'pre-recorded' END,
               'done',
               TIMESTAMPTZ '2025-01-01 00:00:00+00' + to_days(CAST((i // 2) % 3 AS INTEGER) * 31),
               'h', now()
        FROM range(36000) AS t(i)`);
      await writer.run(`
        INSERT INTO words (job_id, source, utterance_idx, word_idx, word)
        SELECT 'job-' || i, 'transcription', 0, w, 'w' || w
        FROM range(36000) AS t(i), range(2) AS u(w)
        WHERE w = 0 OR i % 5 = 0`);
    } finally {
      await writer.close();
    }

    const reader = await openReadOnly(path);
    try {
      await reader.all("SET memory_limit = '16MiB'");
      const copies: string[] = [];
      const recording: RowSource = {
        path: reader.path,
        all: (sql, params) => {
          if (sql.startsWith('COPY')) copies.push(sql);
          return reader.all(sql, params);
        },
      };
      const out = join(tempDir(), 'words');
      const rows = await copyDataset(
        recording,
        'words',
        {},
        { path: out, partitionBy: ['kind', 'month'], setting: 'test' },
      );
      expect(rows).toBe(43_200);
      expect(Math.floor((16 * 2 ** 20) / JOB_JOIN_BYTES)).toBe(16_384);
      expect(copies).toHaveLength(3);

      const partitions = readdirSync(out, { recursive: true }).filter((f) => String(f).endsWith('.parquet'));
      expect(partitions).toHaveLength(6);
      const glob = sqlPathLiteral(join(out, '**', '*.parquet'), 'test');
      const [read] = await reader.all<{ n: bigint; distinct_words: bigint }>(
        `SELECT count(*) AS n, count(DISTINCT (job_id, word_idx)) AS distinct_words FROM read_parquet(${glob})`,
      );
      expect(Number(read?.n)).toBe(43_200);
      expect(Number(read?.distinct_words)).toBe(43_200);
      const misplaced = await reader.all(
        `SELECT p.job_id FROM read_parquet(${glob}, hive_partitioning = true) AS p
         JOIN jobs AS j ON j.id = p.job_id
         WHERE p.kind <> j.kind OR p.month <> strftime(j.created_at AT TIME ZONE 'UTC', '%Y-%m')
         LIMIT 1`,
      );
      expect(misplaced).toEqual([]);
    } finally {
      await reader.close();
    }
  });
});

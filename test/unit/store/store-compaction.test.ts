/**
 * A run writes its own rows, not the history: the row groups already in the file are left as they
 * are when a later run appends (no key on the history tables, no merging of row groups at each
 * checkpoint), and the small row groups runs leave behind are merged once enough have piled up,
 * nothing lost: those of `job_records` (the records as received, the costliest to rewrite) a batch
 * of `raw` at a time, the others a batch that fits the smallest budget at a time.
 */
import { describe, expect, it } from 'vitest';
import { generateDataset } from '../../../src/simulator/records/generate.js';
import type { Database } from '../../../src/store/database.js';
import {
  COUNT_EVERY_ROWS,
  compactIfFragmented,
  JOBS_GROUP_RAW_BYTES,
} from '../../../src/store/file/merge-row-groups.js';
import { openReadOnly, openWriter } from '../../../src/store/open-file.js';
import { fingerprint } from '../../helpers/db-fingerprint.js';
import { loadRecords } from '../../helpers/load.js';
import { migratedDb } from '../../helpers/migrated-db.js';

interface Group {
  row_group_id: number;
  rows: number;
  /** Where `raw` of the row group lives in the file: it changes when the row group is rewritten. */
  raw_blocks: string;
}

async function rowGroups(db: Database, table: string): Promise<Group[]> {
  // `table` is one of ours, a literal in this test.
  return db.all<Group>(
    `SELECT row_group_id::INTEGER AS row_group_id,
            sum(count) FILTER (WHERE column_path = '[0]')::INTEGER AS rows,
            string_agg(block_id || ':' || block_offset, ',' ORDER BY segment_id) FILTER (WHERE column_name = 'raw' AND segment_type <> 'VALIDITY') AS raw_blocks
     FROM pragma_storage_info('${table}') GROUP BY row_group_id ORDER BY row_group_id`,
  );
}

/** `commits` transactions, each `fill(part)` written straight into the file, as a back-fill's commits. */
async function commitsStraightIntoFile(
  db: Database,
  commits: number,
  fill: (part: number) => Promise<void>,
): Promise<void> {
  for (let part = 0; part < commits; part++) {
    await db.transaction(async () => {
      db.checkpointAtCommit();
      await fill(part);
    });
  }
}

const records = generateDataset({
  seed: 8,
  preRecorded: 30,
  live: 20,
  utterancesPerJob: 2,
  wordsPerUtterance: 2,
});

describe('what a run writes', () => {
  it('leaves the stored row groups of job_records untouched when a run appends one job', async () => {
    const path = await migratedDb('append.duckdb');
    let db = await openWriter(path);
    await loadRecords(db, records.slice(1), new Date());
    await db.close();
    db = await openWriter(path);
    const before = await rowGroups(db, 'job_records');
    await loadRecords(db, records.slice(0, 1), new Date());
    await db.close();
    db = await openReadOnly(path);
    const after = await rowGroups(db, 'job_records');
    await db.close();
    expect(before).toHaveLength(1);
    // The 49 stored jobs stay where they were; the new one is a row group of its own.
    expect(after[0]).toEqual(before[0]);
    expect(after.map((g) => g.rows)).toEqual([49, 1]);
  });

  it('merges the small row groups of many runs once enough piled up, every row kept', async () => {
    const path = await migratedDb('merge.duckdb');
    const compactAfter = 3;
    let db = await openWriter(path, { compactAfter });
    await loadRecords(db, records.slice(6), new Date());
    await db.close();
    const counts: number[] = [];
    const narrowCounts: number[] = [];
    for (let i = 5; i >= 0; i--) {
      db = await openWriter(path, { compactAfter });
      await loadRecords(db, [records[i]], new Date());
      counts.push((await rowGroups(db, 'job_records')).length);
      narrowCounts.push((await rowGroups(db, 'jobs')).length);
      await db.close();
    }
    // Each run adds a group to each table, counted before its close. The groups of job_records and
    // jobs grow by one a run until `compactAfter` small ones lie beside the first group (of 44 jobs:
    // not small); then the close merges them into one, still small, group.
    expect(counts).toEqual([2, 3, 4, 3, 4, 3]);
    expect(narrowCounts).toEqual(counts);
    db = await openReadOnly(path);
    const groups = await rowGroups(db, 'job_records');
    const narrow = await rowGroups(db, 'jobs');
    const [n] = await db.all<{ n: number }>('SELECT count(DISTINCT id)::INTEGER AS n FROM jobs');
    await db.close();
    expect(groups.length).toBeLessThanOrEqual(compactAfter + 1);
    expect(narrow.length).toBeLessThanOrEqual(compactAfter + 1);
    expect(n?.n).toBe(50);
    const whole = await migratedDb('whole.duckdb');
    const one = await openWriter(whole);
    await loadRecords(one, [...records.slice(6), ...records.slice(0, 6).reverse()], new Date());
    await one.close();
    const a = await fingerprint(path);
    const b = await fingerprint(whole);
    // Same jobs, children and rows (synced_at differs per run, so compare what the loader keeps).
    expect(a['utterances']).toBe(b['utterances']);
    expect(a['words']).toBe(b['words']);
    expect(a['module_results']).toBe(b['module_results']);
    // The records as received: a row each, the same in both.
    const recordsIn = async (file: string) => {
      const reader = await openReadOnly(file);
      try {
        return await reader.all(
          'SELECT count(*)::INTEGER AS n, sum(hash(job_id, job_created_at, raw))::VARCHAR AS h FROM job_records',
        );
      } finally {
        await reader.close();
      }
    };
    const stored = await recordsIn(path);
    expect(stored).toEqual(await recordsIn(whole));
    expect(stored[0]).toMatchObject({ n: 50 });
  });

  it('counts the history tables when the rows of runs that wrote pass a multiple of COUNT_EVERY_ROWS, sync_runs when all its rows do', async () => {
    const path = await migratedDb('runs.duckdb');
    const compactAfter = 2;
    for (let i = 0; i < compactAfter; i++) {
      const db = await openWriter(path, { compactAfter: 1_000 });
      await loadRecords(db, [records[i]], new Date());
      await db.close();
    }
    /**
     * Closes a writer on a file whose sync_runs hold `runs` runs, one a minute, each a row per kind
     * of `kinds`, the first `writing` of them having inserted a job; then the row groups of jobs
     * and of sync_runs.
     */
    const closeWithRuns = async (
      runs: number,
      writing: number,
      kinds: readonly string[] = ['live'],
    ): Promise<[number, number]> => {
      const db = await openWriter(path, { compactAfter });
      await db.run('DELETE FROM sync_runs');
      for (let i = 0; i < runs; i++) {
        for (const [k, kind] of kinds.entries()) {
          await db.run(
            `INSERT INTO sync_runs (run_id, kind, mode, window_before, started_at, outcome, inserted)
             VALUES ('run-' || $i, $kind, 'incremental', now(), TIMESTAMPTZ '2026-01-01' + to_minutes($i::BIGINT) + to_seconds($k::BIGINT), 'ok', $inserted)`,
            { i, k, kind, inserted: i < writing ? 1 : 0 },
          );
        }
        // As each run's close does: its rows become a row group of their own.
        await db.run('CHECKPOINT');
      }
      await db.close();
      const reader = await openReadOnly(path);
      const groups = [
        (await rowGroups(reader, 'jobs')).length,
        (await rowGroups(reader, 'sync_runs')).length,
      ];
      await reader.close();
      return groups as [number, number];
    };
    const N = COUNT_EVERY_ROWS;
    // One row short of a count: nothing is counted, nothing merged.
    expect(await closeWithRuns(N - 1, N - 1)).toEqual([compactAfter, N - 1]);
    // Idle runs up to the multiple: only sync_runs is counted and merged; the jobs' groups stay.
    expect(await closeWithRuns(N, 1)).toEqual([compactAfter, 1]);
    // Runs of both kinds count by their rows: half as many idle runs reach the multiple.
    expect(await closeWithRuns(N / 2, 0, ['pre-recorded', 'live'])).toEqual([compactAfter, 1]);
    // One past it: the latest run's rows did not take the total past the multiple.
    expect(await closeWithRuns(N / 2 + 1, 0, ['pre-recorded', 'live'])).toEqual([compactAfter, N / 2 + 1]);
    // The latest run wrote, and its rows took those of runs that wrote to the multiple: every table
    // is counted and merged.
    expect(await closeWithRuns(N, N)).toEqual([1, 1]);
  });

  it('merges only the small row groups, leaving the groups of a back-fill where they were', async () => {
    const path = await migratedDb('only-small.duckdb');
    const compactAfter = 4;
    const many = generateDataset({
      seed: 9,
      preRecorded: 62,
      live: 62,
      utterancesPerJob: 1,
      wordsPerUtterance: 1,
    });
    // A back-fill's checkpoints leave row groups of at least a batch of records, over the 32 rows
    // under which a group of job_records is small (sql/load/row-groups.sql): three of 40 here.
    for (let part = 0; part < 3; part++) {
      const db = await openWriter(path, { compactAfter });
      await loadRecords(db, many.slice(compactAfter + 40 * part, compactAfter + 40 * (part + 1)), new Date());
      await db.close();
    }
    let db = await openReadOnly(path);
    const backFilled = await rowGroups(db, 'job_records');
    await db.close();
    for (let i = compactAfter - 1; i >= 0; i--) {
      db = await openWriter(path, { compactAfter });
      await loadRecords(db, [many[i]], new Date());
      await db.close();
    }
    db = await openReadOnly(path);
    const after = await rowGroups(db, 'job_records');
    const [n] = await db.all<{ n: number }>('SELECT count(DISTINCT id)::INTEGER AS n FROM jobs');
    await db.close();
    // The back-fill's groups keep their rows and their blocks (DuckDB's own merging rewrote them
    // with the small ones); the runs' one-job groups became one.
    expect(backFilled.map((g) => g.rows)).toEqual([40, 40, 40]);
    expect(after.slice(0, 3)).toEqual(backFilled);
    expect(after).toHaveLength(4);
    expect(n?.n).toBe(124);
  });

  it('moves small row groups a batch that fits the smallest budget at a time: 2,048 rows of sync_runs', async () => {
    const path = await migratedDb('batches.duckdb');
    const db = await openWriter(path, { compactAfter: 1_000 });
    try {
      // Three commits of 2,000 runs each, under the 2,048 rows under which a group of sync_runs is small.
      await commitsStraightIntoFile(db, 3, async (part) => {
        await db.run(
          `INSERT INTO sync_runs (run_id, kind, mode, window_before, started_at, outcome)
             SELECT 'r' || i, 'live', 'incremental', now(), TIMESTAMPTZ '2025-01-01' + to_seconds(i), 'ok'
             FROM range($from, $from + 2000) t(i)`,
          { from: part * 2000 },
        );
      });
      const digest = () =>
        db.all('SELECT count(*)::INTEGER AS n, sum(hash(run_id, started_at))::VARCHAR AS h FROM sync_runs');
      const before = await digest();
      expect((await rowGroups(db, 'sync_runs')).map((g) => g.rows)).toEqual([2000, 2000, 2000]);
      expect(await compactIfFragmented(db, 2)).toBe(true);
      expect((await rowGroups(db, 'sync_runs')).map((g) => g.rows).sort((a, b) => a - b)).toEqual([
        1904, 2048, 2048,
      ]);
      expect(await digest()).toEqual(before);
    } finally {
      await db.close();
    }
  });

  it('merges the small row groups of job_records in batches of about JOBS_GROUP_RAW_BYTES of raw, every row kept', async () => {
    // Four runs of 18 records of ~250 KB: 18 MB of raw, more than one batch, in four small row groups.
    const path = await migratedDb('big-jobs.duckdb');
    const recordBytes = 249_622;
    let db = await openWriter(path, { compactAfter: 1_000 });
    for (let run = 0; run < 4; run++) {
      await db.transaction(() =>
        db.run(
          `INSERT INTO job_records (job_id, job_created_at, raw)
           SELECT 'j' || lpad(i::VARCHAR, 3, '0'), TIMESTAMPTZ '2025-01-01' + to_seconds(i),
                  '{"id":"j' || lpad(i::VARCHAR, 3, '0') || '","pad":"' || repeat(md5(i::VARCHAR), 7800) || '"}'
           FROM range($from, $from + 18) t(i)`,
          { from: run * 18 },
        ),
      );
      await db.run('CHECKPOINT');
    }
    expect((await rowGroups(db, 'job_records')).map((g) => g.rows)).toEqual([18, 18, 18, 18]);
    const [size] = await db.all<{ n: number }>('SELECT max(strlen(raw))::INTEGER AS n FROM job_records');
    expect(size?.n).toBe(recordBytes);
    await db.close();
    const before = await fingerprint(path);

    db = await openWriter(path, { compactAfter: 4 });
    await db.close();
    db = await openReadOnly(path);
    const groups = await rowGroups(db, 'job_records');
    const [pad] = await db.all<{ bad: number }>(
      "SELECT count(*) FILTER (WHERE raw->>'pad' <> repeat(md5(substr(job_id, 2)::INTEGER::VARCHAR), 7800))::INTEGER AS bad FROM job_records",
    );
    await db.close();
    expect(await fingerprint(path)).toEqual(before);
    expect(pad?.bad).toBe(0);
    // 72 records of 250 KB in batches of about 16 MiB: two row groups, none over a batch and a record.
    const perGroup = Math.floor(JOBS_GROUP_RAW_BYTES / recordBytes) + 1;
    expect(groups.length).toBe(2);
    for (const group of groups) expect(group.rows).toBeLessThanOrEqual(perGroup);
  });
});

/**
 * Migration 004 gives every row of utterances, words and module_results its job's created_at
 * (`job_created_at`) in a file written before it: no row lost or added, rows kept in their stored
 * order, a row whose job is not stored kept with NULL. The loader then writes the column, and a
 * changed job's rows are replaced by (job_id, job_created_at).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWriter } from '../../../src/store/open-file.js';
import { smallDataset } from '../../helpers/analytics-data.js';
import { loadRecords } from '../../helpers/load.js';
import { tempDir } from '../../helpers/tmp.js';

/** The migrations of the release before 004. */
const BEFORE_004 = [1, 2, 3, 100, 101, 102];

const JOBS = [
  ['job-b', '2026-03-02T10:00:00Z'],
  ['job-a', '2026-01-15T08:30:00Z'],
  ['job-c', '2026-02-01T00:00:00Z'],
] as const;

describe('migration 004: the job created_at on every row of a job', () => {
  it('fills job_created_at of each stored row from its job, in the stored order, orphans kept', async () => {
    const path = join(tempDir(), 'before-004.duckdb');
    const old = await openWriter(path, { migrations: BEFORE_004 });
    try {
      for (const [id, created] of JOBS) {
        await old.run(
          `INSERT INTO jobs (id, kind, status, created_at, raw, content_hash, synced_at)
           VALUES ($id, 'live', 'done', $created::TIMESTAMPTZ, '{}', 'h', now())`,
          { id, created },
        );
      }
      // Rows job by job, in the order a loader appends them; 'gone' has no job stored.
      for (const id of ['job-b', 'job-a', 'gone', 'job-c']) {
        await old.run(
          `INSERT INTO utterances (job_id, source, utterance_idx, text) VALUES ($id, 'transcription', 0, 'hi')`,
          { id },
        );
        await old.run(
          `INSERT INTO words (job_id, source, utterance_idx, word_idx, word)
           SELECT $id, 'transcription', 0, i, 'w' || i FROM range(3) t(i)`,
          { id },
        );
        await old.run(
          `INSERT INTO module_results (job_id, module, results) VALUES ($id, 'summarization', '"s"')`,
          {
            id,
          },
        );
      }
      const [columns] = await old.all<{ n: number }>(
        "SELECT count(*)::INTEGER AS n FROM duckdb_columns() WHERE column_name = 'job_created_at'",
      );
      expect(columns?.n).toBe(0);
    } finally {
      await old.close();
    }

    const db = await openWriter(path);
    try {
      const created = new Map<string, string | null>([
        ...JOBS.map(([id, at]) => [id, new Date(at).toISOString()] as const),
        ['gone', null],
      ]);
      for (const table of ['utterances', 'words', 'module_results']) {
        const rows = await db.all<{ job_id: string; at: string | null }>(
          `SELECT job_id, strftime(job_created_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.000Z') AS at
           FROM ${table} ORDER BY rowid`,
        );
        const perJob = table === 'words' ? 3 : 1;
        // The stored jobs' rows keep their order; the orphan's may move within its vector.
        expect(
          rows.map((row) => row.job_id).filter((id) => id !== 'gone'),
          table,
        ).toEqual(['job-b', 'job-a', 'job-c'].flatMap((id) => Array(perJob).fill(id)));
        expect(
          rows.filter((row) => row.job_id === 'gone'),
          table,
        ).toHaveLength(perJob);
        for (const row of rows) expect(row.at, `${table} ${row.job_id}`).toBe(created.get(row.job_id));
      }
    } finally {
      await db.close();
    }
  });

  it('loads and replaces rows by their job created_at: a changed job keeps only its new rows', async () => {
    const db = await openWriter(join(tempDir(), 'loaded.duckdb'));
    try {
      const records = smallDataset(7, 6);
      await loadRecords(db, records, new Date('2026-11-01T00:00:00Z'));
      const mismatched = `SELECT count(*)::INTEGER AS n FROM %T c LEFT JOIN jobs j ON j.id = c.job_id
                          WHERE j.created_at IS DISTINCT FROM c.job_created_at`;
      for (const table of ['utterances', 'words', 'module_results']) {
        const [row] = await db.all<{ n: number }>(mismatched.replace('%T', table));
        expect(row?.n, table).toBe(0);
      }
      const done = records.find((record) => record.status === 'done' && record.kind === 'pre-recorded');
      if (!done) throw new Error('the dataset has no done pre-recorded job');
      const count = async (table: string) =>
        (
          await db.all<{ n: number }>(
            `SELECT count(*)::INTEGER AS n FROM ${table} WHERE ${table === 'jobs' ? 'id' : 'job_id'} = $id`,
            { id: done.id },
          )
        )[0]?.n;
      const before = { words: await count('words'), utterances: await count('utterances') };
      expect(before.words).toBeGreaterThan(0);
      await loadRecords(
        db,
        [{ ...done, custom_metadata: { edited: true } }],
        new Date('2026-11-02T00:00:00Z'),
      );
      expect({ words: await count('words'), utterances: await count('utterances') }).toEqual(before);
      expect(await count('jobs')).toBe(1);
    } finally {
      await db.close();
    }
  });
});

/**
 * A transcript-sync file whose `job_records` are one row group of big records, as a file rewritten
 * whole leaves them (a `compact` of an earlier release, an upgrade that moved `raw` out of `jobs`):
 * DuckDB reads such a row group's `raw` a vector of up to 2,048 records at a time, decompressed
 * whole.
 */
import { openWriter } from '../../src/load/open-file.js';

/** Bytes of each record's `raw` (ASCII). */
export const BIG_RAW_BYTES = 29_976;

/** `records` jobs of BIG_RAW_BYTES each, written in one transaction (one row group), hashes true. */
export async function writeBigRawFile(path: string, records: number): Promise<void> {
  const db = await openWriter(path);
  try {
    await db.transaction(async () => {
      for (let from = 0; from < records; from += 200) {
        await db.run(
          `CREATE OR REPLACE TEMP TABLE big AS
           SELECT 'j' || lpad(i::VARCHAR, 5, '0') AS id, TIMESTAMPTZ '2025-01-01' + to_seconds(i) AS created_at,
                  '{"id":"j' || lpad(i::VARCHAR, 5, '0') || '","pad":"' || repeat(md5(i::VARCHAR), 936) || '"}' AS r
           FROM range($from, least($from + 200, $records)) t(i)`,
          { from, records },
        );
        await db.run(
          `INSERT INTO jobs (id, kind, status, created_at, content_hash, synced_at)
           SELECT id, 'pre-recorded', 'done', created_at, sha1(r), now() FROM big`,
        );
        await db.run('INSERT INTO job_records SELECT id, created_at, r FROM big');
      }
    });
  } finally {
    await db.close();
  }
}

/**
 * A transcript-sync file whose `jobs` are one row group of big records, as a file rewritten whole
 * leaves them (a `compact` of an earlier release, a copy of a history): DuckDB reads such a row
 * group's `raw` a vector of up to 2,048 records at a time, decompressed whole.
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
          `INSERT INTO jobs (id, kind, status, created_at, raw, content_hash, synced_at)
           SELECT 'j' || lpad(i::VARCHAR, 5, '0'), 'pre-recorded', 'done', TIMESTAMPTZ '2025-01-01' + to_seconds(i), r, sha1(r), now()
           FROM (SELECT i, '{"id":"j' || lpad(i::VARCHAR, 5, '0') || '","pad":"' || repeat(md5(i::VARCHAR), 936) || '"}' AS r
                 FROM range($from, least($from + 200, $records)) t(i))`,
          { from, records },
        );
      }
    });
  } finally {
    await db.close();
  }
}

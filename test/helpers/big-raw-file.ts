/**
 * A transcript-sync file whose `job_records` are one row group of big records, as a file rewritten
 * whole leaves them (a `compact` of an earlier release, an upgrade that moved `raw` out of `jobs`):
 * DuckDB reads such a row group's `raw` a vector of up to 2,048 records at a time, decompressed
 * whole.
 */
import { closeSync, copyFileSync, existsSync, openSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openWriter } from '../../src/store/open-file.js';
import { copyMigrated } from './migrated-db.js';
import { SCRATCH } from './tmp.js';

/** Bytes of each record's `raw` (ASCII). */
export const BIG_RAW_BYTES = 29_976;

/**
 * `records` jobs of BIG_RAW_BYTES each, written in one transaction (one row group), hashes true: a
 * copy of the file written once per run for each count (writing one of 3,000 records takes ~0.7
 * CPU-s, copying it ~1 ms).
 */
export async function writeBigRawFile(path: string, records: number): Promise<void> {
  copyFileSync(await writtenOnce(records), path);
}

/** How long a worker waits for the file another one writes, ms. */
const WAIT_MS = 60_000;

/**
 * The run's file of `records` big records, in its scratch folder: the first worker to ask claims it
 * (a file only one can create) and writes it, renamed into place whole; the others wait for it.
 */
async function writtenOnce(records: number): Promise<string> {
  const written = join(SCRATCH, `big-raw-${records}.duckdb`);
  try {
    closeSync(openSync(`${written}.claimed`, 'wx'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    for (const deadline = Date.now() + WAIT_MS; !existsSync(written); await sleep(50)) {
      if (Date.now() > deadline) throw new Error(`no ${written} after ${WAIT_MS} ms`);
    }
    return written;
  }
  const own = join(SCRATCH, `big-raw-${records}-writing.duckdb`);
  await writeFile(own, records);
  renameSync(own, written);
  return written;
}

async function writeFile(path: string, records: number): Promise<void> {
  await copyMigrated(path);
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

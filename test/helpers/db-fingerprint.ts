/**
 * A fingerprint of everything a DuckDB file of transcript-sync holds: per table, the row count and
 * the sum of its rows' hashes, whatever order the file keeps them in (`jobs` with each job's record
 * as received). Two equal fingerprints mean the data was left untouched (the file's bytes may still
 * differ: DuckDB rewrites its header on a checkpoint).
 */
import { DuckDBInstance } from '@duckdb/node-api';

export const TABLES = [
  'jobs',
  'utterances',
  'words',
  'module_results',
  'quarantine',
  'sync_runs',
  'checkpoints',
] as const;

/**
 * `omit`: columns left out of every table's rows (those a later migration adds, to compare a file
 * with its upgrade).
 */
export async function fingerprint(
  dbPath: string,
  options: { readonly omit?: readonly string[] } = {},
): Promise<Record<string, string>> {
  const omit = (options.omit ?? []).map((c) => `'${c}'`).join(', ');
  const instance = await DuckDBInstance.create(dbPath, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    const out: Record<string, string> = {};
    const rawInJobs =
      (
        await conn.runAndReadAll(
          "SELECT 1 FROM duckdb_columns() WHERE schema_name = 'main' AND table_name = 'jobs' AND column_name = 'raw'",
        )
      ).currentRowCount > 0;
    // `erased_at` (migration 007) left out while no job holds one: a file before it and the same
    // file after it hold the same rows.
    const erasedUnset =
      (
        await conn.runAndReadAll(
          "SELECT 1 FROM duckdb_columns() WHERE schema_name = 'main' AND table_name = 'jobs' AND column_name = 'erased_at'",
        )
      ).currentRowCount > 0 &&
      (await conn.runAndReadAll('SELECT 1 FROM jobs WHERE erased_at IS NOT NULL LIMIT 1')).currentRowCount ===
        0;
    const unset = erasedUnset ? ', erased_at' : '';
    for (const table of TABLES) {
      // `jobs` with each job's record last, wherever the file keeps it: in the `raw` column of a
      // file written before job_records took it (or whose upgrade has not dropped it yet), or there.
      const source =
        table !== 'jobs'
          ? table
          : rawInJobs
            ? `(SELECT * EXCLUDE (raw${unset}), raw FROM jobs)`
            : `(SELECT j.* ${erasedUnset ? 'EXCLUDE (erased_at)' : ''}, r.raw FROM jobs j LEFT JOIN job_records r ON r.job_id = j.id)`;
      // `hash(t)` hashes the whole row; their sum is independent of storage order, and counts
      // a repeated row each time it repeats.
      const rows =
        omit === '' ? source : `(SELECT COLUMNS(c -> NOT list_contains([${omit}], c)) FROM ${source})`;
      const reader = await conn.runAndReadAll(
        `SELECT count(*) AS n, coalesce(sum(hash(t)), 0)::VARCHAR AS h FROM ${rows} t`,
      );
      const row = reader.getRowObjectsJS()[0];
      out[table] = `${String(row?.['n'])}:${String(row?.['h'])}`;
    }
    return out;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/**
 * A fingerprint of everything a DuckDB file of transcript-sync holds: per table, the row count and
 * a hash of its rows in a stable order. Two equal fingerprints mean the data was left untouched
 * (the file's bytes may still differ: DuckDB rewrites its header on a checkpoint).
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

export async function fingerprint(dbPath: string): Promise<Record<string, string>> {
  const instance = await DuckDBInstance.create(dbPath, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    const out: Record<string, string> = {};
    for (const table of TABLES) {
      // `t::VARCHAR` is the whole row as text; ordering by it makes the hash independent of storage order.
      const reader = await conn.runAndReadAll(
        `SELECT count(*) AS n, md5(coalesce(string_agg(t::VARCHAR, '|' ORDER BY t::VARCHAR), '')) AS h FROM ${table} t`,
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

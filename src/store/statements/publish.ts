/** What a publish reads besides the datasets: freshness, partitions' fingerprints, files' rows. */
import type { RowSource } from '../database.js';
import { queryText } from './queries.js';

/** Instants as ISO 8601 UTC text. */
export type KindFreshness = {
  readonly kind: string;
  /** window_before of the kind's newest ok run; null: never synced. */
  readonly as_of: string | null;
  readonly last_outcome: string;
  readonly last_error: string | null;
};

/** One (kind, month) partition of the job tables, as its jobs stand now (deleted ones left out). */
export type JobPartitionPrint = {
  readonly kind: string;
  readonly month: string;
  readonly jobs: number;
  /** The latest synced_at, as text. */
  readonly synced: string;
  /** An order-free hash of (id, content_hash). */
  readonly hash: string;
};

/** Per kind that has runs: its last successful sync and how its newest finished run ended. */
export const kindFreshness = (db: RowSource) => db.all<KindFreshness>(queryText('publish-kinds'));

export const jobPartitionPrints = (db: RowSource) =>
  db.all<JobPartitionPrint>(queryText('publish-fingerprints'));

/** Rows of each Parquet file of `files` (absolute paths), read from their footers. */
export async function parquetFileRows(db: RowSource, files: readonly string[]): Promise<Map<string, number>> {
  if (files.length === 0) return new Map();
  const rows = await db.all<{ file: string; rows: number | bigint }>(queryText('publish-file-rows'), {
    files: [...files],
  });
  return new Map(rows.map((r) => [r.file, Number(r.rows)]));
}

/**
 * The datasets `export` and `--publish` write as Parquet: each the rows of one statement of sql/queries
 * with the partition columns kind and month, copied by DuckDB (COPY ... TO), so its text stays here.
 */
import type { RowSource } from '../database.js';
import {
  copyBatches,
  copyPartitionFiles,
  copyToParquet,
  type ParquetTarget,
  partitionBatches,
} from './parquet-copy.js';
import { type QueryName, queryText } from './queries.js';

/**
 * `ofJobs`: rows follow their job (the statement takes $include_deleted); else an aggregate. `wide`:
 * rows of kilobytes, written a partition per COPY (copyPartitionFiles), not a batch of partitions.
 */
const DATASETS = {
  jobs: { query: 'export-jobs', ofJobs: true, wide: true },
  utterances: { query: 'export-utterances', ofJobs: true, wide: false },
  words: { query: 'export-words', ofJobs: true, wide: false },
  module_results: { query: 'export-module-results', ofJobs: true, wide: true },
  /** jobs with `raw`, the record as received (--publish-raw). */
  jobs_with_raw: { query: 'publish-jobs-raw', ofJobs: true, wide: true },
  billing_daily: { query: 'publish-billing-daily', ofJobs: false, wide: false },
  billing_monthly: { query: 'publish-billing-monthly', ofJobs: false, wide: false },
} as const satisfies Record<
  string,
  { readonly query: QueryName; readonly ofJobs: boolean; readonly wide: boolean }
>;

export type Dataset = keyof typeof DATASETS;

/** What `export` writes, and all a reader may ask the writer to copy: the job tables. */
export const EXPORTED_DATASETS = [
  'jobs',
  'utterances',
  'words',
  'module_results',
] as const satisfies readonly Dataset[];
export type ExportedDataset = (typeof EXPORTED_DATASETS)[number];

export interface DatasetFilter {
  /** Datasets of jobs only: keep jobs a --full sync no longer found upstream; default false. */
  readonly include_deleted?: boolean;
  /** Only the rows of these partitions (`kind|month`); every row when undefined. */
  readonly partitions?: readonly string[];
}

/**
 * Bytes of DuckDB's pool a COPY of a job's rows allows for each job it joins them to (a hash table):
 * a batch holds at most memory_limit / JOB_JOIN_BYTES jobs (docs/decisions/0014-published-dataset.md).
 */
export const JOB_JOIN_BYTES = 1024;

/**
 * Writes the rows of `dataset` as Parquet at `target`; returns the row count. Partitioned, each
 * partition is whole in one file, written by a COPY of its own (wide) or of a batch (parquet-copy.ts).
 */
export async function copyDataset(
  db: RowSource,
  dataset: Dataset,
  filter: DatasetFilter,
  target: ParquetTarget,
): Promise<number> {
  const { query, ofJobs, wide } = DATASETS[dataset];
  const source = queryText(query);
  if (!ofJobs) return copyToParquet(db, source, {}, target, filter.partitions);
  const params = { include_deleted: filter.include_deleted ?? false };
  if (target.partitionBy.length === 0) {
    return copyToParquet(db, source, params, target, filter.partitions, wide);
  }
  const jobs = await jobsByPartition(db, params.include_deleted);
  const keys = filter.partitions ?? [...jobs.keys()];
  if (wide) return copyPartitionFiles(db, source, params, target, keys);
  const maxJobs = Math.floor((await memoryLimit(db)) / JOB_JOIN_BYTES);
  return copyBatches(db, source, params, target, partitionBatches(keys, jobs, maxJobs));
}

/** Jobs of each `kind|month` partition of the job datasets (sql/queries/export-partitions.sql). */
async function jobsByPartition(db: RowSource, includeDeleted: boolean): Promise<Map<string, number>> {
  const rows = await db.all<{ key: string; jobs: number | bigint }>(queryText('export-partitions'), {
    include_deleted: includeDeleted,
  });
  return new Map(rows.map((row) => [row.key, Number(row.jobs)]));
}

/** The units DuckDB reports a size in (binary, whatever it was set in). */
const UNIT_BYTES: Readonly<Record<string, number>> = {
  bytes: 1,
  KiB: 2 ** 10,
  MiB: 2 ** 20,
  GiB: 2 ** 30,
  TiB: 2 ** 40,
};

/** The instance's `memory_limit` in bytes, read from DuckDB's text of it; unreadable, a reading's least. */
async function memoryLimit(db: RowSource): Promise<number> {
  const [row] = await db.all<{ limit: string }>("SELECT current_setting('memory_limit') AS limit");
  const match = /^([\d.]+)\s*([A-Za-z]+)$/.exec(row?.limit.trim() ?? '');
  const unit = UNIT_BYTES[match?.[2] ?? ''];
  return match && unit !== undefined ? Number(match[1]) * unit : 64 * 2 ** 20;
}

/** Per (kind, month) partition of `dataset`: its rows and an order-free hash of them. */
export function datasetFingerprints(
  db: RowSource,
  dataset: Dataset,
): Promise<{ kind: string; month: string; n: number; hash: string }[]> {
  const { query, ofJobs } = DATASETS[dataset];
  return db.all(
    `SELECT t.kind, t.month, count(*) AS n, CAST(bit_xor(hash(t)) AS VARCHAR) AS hash FROM (${queryText(query)}) AS t GROUP BY ALL`,
    ofJobs ? { include_deleted: false } : undefined,
  );
}

/** What a published partition's fingerprint starts with: its statement (--publish-raw switched: new). */
export function fingerprintTag(dataset: Dataset): string {
  return DATASETS[dataset].query;
}

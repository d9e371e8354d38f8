/**
 * What reports, `status`, `query` and `export` read through: the file opened read-only
 * (./file-reader.ts), or the writer over its socket while a sync runs (./read-client.ts). Both answer
 * with the data as of one commit and refuse anything but reading statements (./guarded-statements.ts).
 */
import type { ExportedDataset, RowSource } from '../../store/index.js';
import type { ResultTable } from '../format/result-table.js';

/** A RowSource (store statements run through it) that also runs a user's SQL. */
export interface Reader extends RowSource {
  /** `file`: opened read-only; `writer`: served by the process that holds the file. */
  readonly via: 'file' | 'writer';
  /**
   * A user's SQL text (one or more statements): each statement's result handed to `onTable` in
   * order, as soon as it is complete. A failing statement throws after the results before it.
   */
  userQuery(sql: string, onTable: (table: ResultTable) => Promise<void> | void): Promise<void>;
  /**
   * A user's SQL text of one reading statement, its result written as one Parquet file at `file`
   * (absolute; its folder exists) with the result's own column types; returns the row count.
   */
  userQueryParquet(sql: string, file: string): Promise<number>;
  /** Writes a dataset's rows as Parquet under `targetDir`, partitioned Hive-style; returns the row count. */
  copyParquet(copy: ParquetCopy): Promise<number>;
}

export type { RowSource } from '../../store/index.js';

export interface ParquetCopy {
  readonly dataset: ExportedDataset;
  readonly params: { readonly include_deleted: boolean };
  /** Absolute folder the partitions go into (created by DuckDB). */
  readonly targetDir: string;
  readonly partitionBy: readonly string[];
}

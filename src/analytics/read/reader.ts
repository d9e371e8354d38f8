/**
 * What reports, `status`, `query` and `export` read through: the file opened read-only
 * (fileReader, below), or the writer over its socket while a sync runs (./read-client.ts). Both
 * answer with the data as of one commit and refuse anything but reading statements
 * (./guarded-statements.ts).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { copyDataset, type Database, type ExportedDataset, type RowSource } from '../../store/index.js';
import { readerTable } from '../format/duckdb-result-table.js';
import { resultToParquet } from '../format/result-parquet.js';
import type { ResultTable } from '../format/result-table.js';
import { PARQUET_SINGLE, runGuarded, sandboxInstance } from './guarded-statements.js';

/** A RowSource (store statements run through it) that also runs a user's SQL. */
export interface Reader extends RowSource {
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

/**
 * The Reader of a file opened read-only. A user's SQL runs through the statement gate on a
 * connection of its own, on an instance sandboxed at the first user query (no file access outside
 * `readableDirs`, settings locked): the sandbox is permanent, and a Parquet copy needs none.
 */
export function fileReader(db: Database, readableDirs: readonly string[] = []): Reader {
  let sandboxApplied = false;
  /** `fn` on a new connection of the file's instance, sandboxed first; the connection closes after. */
  const sandboxed = <T>(fn: (connection: DuckDBConnection) => Promise<T>): Promise<T> =>
    db.withConnection(async (connection) => {
      if (!sandboxApplied) await sandboxInstance(connection, { readableDirs, lockSettings: true });
      sandboxApplied = true;
      return fn(connection);
    });
  return {
    path: db.path,
    all: (sql, params) => db.all(sql, params),
    userQuery: (sql, onTable) =>
      sandboxed(async (connection) => {
        await runGuarded(connection, sql, db.path, {
          each: (reader, explain) => onTable(readerTable(reader, explain)),
        });
      }),
    userQueryParquet: (sql, file) =>
      sandboxed(async (connection) => {
        const [reader] = await runGuarded(connection, sql, db.path, { single: PARQUET_SINGLE });
        return reader ? resultToParquet(reader, file) : 0;
      }),
    copyParquet: ({ dataset, params, targetDir, partitionBy }) =>
      copyDataset(db, dataset, params, { path: targetDir, partitionBy, setting: '--out' }),
  };
}

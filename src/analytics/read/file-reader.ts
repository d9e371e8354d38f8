/**
 * The Reader of a file opened read-only. A user's SQL runs through the statement gate on a
 * connection of its own, on an instance sandboxed at the first user query (no file access outside
 * `readableDirs`, settings locked): the sandbox is permanent, and a Parquet copy needs none.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { copyDataset, type Database, type SqlParams } from '../../store/index.js';
import { readerTable } from '../format/duckdb-result-table.js';
import { resultToParquet } from '../format/result-parquet.js';
import type { ResultTable } from '../format/result-table.js';
import { PARQUET_SINGLE, runGuarded, sandboxInstance } from './guarded-statements.js';
import type { ParquetCopy, Reader } from './reader.js';

export class FileReader implements Reader {
  readonly via = 'file';
  private sandboxApplied = false;

  constructor(
    private readonly db: Database,
    private readonly readableDirs: readonly string[] = [],
  ) {}

  get path(): string {
    return this.db.path;
  }

  all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
    return this.db.all<T>(sql, params);
  }

  async userQuery(sql: string, onTable: (table: ResultTable) => Promise<void> | void): Promise<void> {
    await this.sandboxed(async (connection) => {
      await runGuarded(connection, sql, this.db.path, {
        each: (reader, explain) => onTable(readerTable(reader, explain)),
      });
    });
  }

  async userQueryParquet(sql: string, file: string): Promise<number> {
    return this.sandboxed(async (connection) => {
      const [reader] = await runGuarded(connection, sql, this.db.path, { single: PARQUET_SINGLE });
      return reader ? resultToParquet(reader, file) : 0;
    });
  }

  /** `fn` on a new connection of the file's instance, sandboxed first; the connection closes after. */
  private async sandboxed<T>(fn: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    return this.db.withConnection(async (connection) => {
      if (!this.sandboxApplied) {
        await sandboxInstance(connection, { readableDirs: this.readableDirs, lockSettings: true });
        this.sandboxApplied = true;
      }
      return fn(connection);
    });
  }

  async copyParquet(copy: ParquetCopy): Promise<number> {
    return copyDataset(this.db, copy.dataset, copy.params, {
      path: copy.targetDir,
      partitionBy: copy.partitionBy,
      setting: '--out',
    });
  }
}

/**
 * Runs a user's SQL for `transcript-sync query` on a database opened read-only. DuckDB itself
 * refuses writes to a read-only file; on top of that the instance is sandboxed (no file access:
 * COPY TO, ATTACH, read_csv, INSTALL; configuration locked) so that "read-only" also means nothing
 * is written elsewhere. Refusals become ConfigErrors (exit 2) that say why and what to do instead.
 */
import { type DuckDBResultReader, DuckDBTypeId } from '@duckdb/node-api';
import { ConfigError, DatabaseError } from '../errors.js';
import type { Database } from '../store/database.js';
import { type Cell, type Column, type ColumnType, type ResultTable, toCell } from './result-table.js';

const INTEGER_TYPES: ReadonlySet<DuckDBTypeId> = new Set([
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UHUGEINT,
]);
const NUMBER_TYPES: ReadonlySet<DuckDBTypeId> = new Set([
  DuckDBTypeId.FLOAT,
  DuckDBTypeId.DOUBLE,
  DuckDBTypeId.DECIMAL,
]);

const sandboxed = new WeakSet<Database>();

/**
 * Sandboxes the database's DuckDB instance for the rest of its life (the settings are
 * instance-wide and cannot be undone): open a Database for the query alone and close it after.
 */
export async function runReadOnlyQuery(db: Database, sql: string): Promise<ResultTable> {
  if (!db.readOnly) throw new Error('runReadOnlyQuery needs a database opened with readOnly: true');
  if (sql.trim() === '')
    throw new ConfigError(
      'query',
      'the SQL is empty; pass one statement, e.g. "SELECT * FROM billing_monthly"',
    );
  if (!sandboxed.has(db)) {
    await db.run('SET enable_external_access = false');
    await db.run('SET lock_configuration = true');
    sandboxed.add(db);
  }
  let reader: DuckDBResultReader;
  try {
    reader = await db.connection.runAndReadAll(sql);
  } catch (error) {
    throw queryError(db.path, error);
  }
  return readerTable(reader);
}

function readerTable(reader: DuckDBResultReader): ResultTable {
  const typeIds = reader.columnTypes().map((type) => type.typeId);
  const columns: Column[] = reader.columnNames().map((name, i) => ({ name, type: columnType(typeIds[i]) }));
  const js = reader.getRowsJS();
  const json = reader.getRowsJson();
  const rows = js.map((row, r) =>
    row.map((value, c): Cell => {
      const typeId = typeIds[c];
      if (typeId === DuckDBTypeId.TIMESTAMP_TZ && value instanceof Date && !Number.isNaN(value.getTime())) {
        return value.toISOString();
      }
      const kind = columnType(typeId);
      // Numbers and booleans from the JS conversion; every other type as DuckDB spells it.
      return toCell(kind === 'text' ? json[r]?.[c] : value, kind);
    }),
  );
  return { columns, rows };
}

function columnType(typeId: DuckDBTypeId | undefined): ColumnType {
  if (typeId === undefined) return 'text';
  if (INTEGER_TYPES.has(typeId)) return 'integer';
  if (NUMBER_TYPES.has(typeId)) return 'number';
  return typeId === DuckDBTypeId.BOOLEAN ? 'boolean' : 'text';
}

/** Why DuckDB refused, in terms of what `query` allows. */
function queryError(path: string, error: unknown): Error {
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  const options = { cause: error };
  if (/read-only mode|Cannot execute statement of type/i.test(message)) {
    return new ConfigError(
      'query',
      `refused: the statement would change the database, and query is read-only (${message})`,
      {
        hint: 'only reading statements run here (SELECT, WITH, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN); data changes only through sync',
        ...options,
      },
    );
  }
  if (/disabled (by|through) configuration|external access/i.test(message)) {
    return new ConfigError('query', `refused: the statement reads or writes files (${message})`, {
      hint: 'query only reads the database; use `transcript-sync export --out DIR` for Parquet files',
      ...options,
    });
  }
  if (/configuration has been locked/i.test(message)) {
    return new ConfigError('query', `refused: settings cannot be changed by query (${message})`, options);
  }
  if (/^(Parser|Binder|Catalog|Conversion|Invalid Input) Error/i.test(message)) {
    return new ConfigError('query', message, {
      hint: 'check the SQL; `SHOW TABLES` lists the tables and views (see the README (Analytics))',
      ...options,
    });
  }
  return new DatabaseError(`the query failed on ${path}: ${message}`, path, false, false, options);
}

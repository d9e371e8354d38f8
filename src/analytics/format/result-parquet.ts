/**
 * A query's result as a Parquet file, for `query --out FILE.parquet`: the rows are appended, with
 * the result's own column types, to a table of a private in-memory DuckDB, which writes the file.
 * The reading side (a sandboxed file, or the writer serving a socket) never writes where a reader
 * says: the private instance reads nothing but the values it is handed. Types are kept exactly,
 * HUGEINT as DECIMAL(38,0); a value Parquet cannot hold refuses the file (./parquet-types.ts).
 */
import type { DuckDBConnection, DuckDBResultReader } from '@duckdb/node-api';
import { ConfigError } from '../../errors.js';
import { duckdb } from '../../store/index.js';
import { sqlIdentifier, sqlPathLiteral } from '../../util/sql-literal.js';
import { needsCheck, parquetCast, unwritable } from './parquet-types.js';

/** Writes `reader`'s rows to `file` (absolute); returns the row count. */
export async function resultToParquet(reader: DuckDBResultReader, file: string): Promise<number> {
  const names = reader.columnNames();
  const types = reader.columnTypes();
  const checked = types.flatMap((type, i) => (needsCheck(type) ? [i] : []));
  return withPrivateDuckDB(async (connection) => {
    // Types as DuckDB spells them (DECIMAL(38,2), ...), those Parquet has no type for as the exact
    // type they are written in (HUGEINT as DECIMAL(38,0)), into which the appender casts the values.
    const columns = names.map((name, i) => {
      const type = types[i];
      return `${sqlIdentifier(name)} ${type === undefined ? 'VARCHAR' : (parquetCast(type) ?? type.toString())}`;
    });
    await connection.run(`CREATE TABLE result (${columns.join(', ')})`);
    const appender = await connection.createAppender('result');
    try {
      for (const row of reader.getRows()) {
        for (const i of checked) {
          const [value, type] = [row[i] ?? null, types[i]];
          const why = type === undefined ? undefined : unwritable(value, type);
          if (why !== undefined) {
            throw new ConfigError('--out', `column "${names[i]}" holds ${why}, so it cannot be written`, {
              hint: `write it as text (CAST(${sqlIdentifier(names[i] ?? '')} AS VARCHAR)), or use --format csv or json`,
            });
          }
        }
        for (const [i, value] of row.entries()) appender.appendValue(value, types[i]);
        appender.endRow();
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
    await connection.run(`COPY result TO ${sqlPathLiteral(file, '--out')} (FORMAT parquet)`);
    return reader.currentRowCount;
  });
}

/** `fn` on a connection of a private in-memory DuckDB that loads no extension; both close after. */
export async function withPrivateDuckDB<T>(fn: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  const instance = await duckdb().DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  const connection = await instance.connect();
  try {
    return await fn(connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

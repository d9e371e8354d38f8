/**
 * A DuckDB result as the ResultTable every output format reads: integers and numbers as numbers
 * (bigints past 2^53 as text), TIMESTAMPTZ as ISO 8601 UTC, JSON, lists, structs and maps as `json`
 * columns (nested in JSON output), every other type as DuckDB spells it.
 */
import { type DuckDBResultReader, DuckDBTypeId } from '@duckdb/node-api';
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
const NESTED_TYPES: ReadonlySet<DuckDBTypeId> = new Set([
  DuckDBTypeId.LIST,
  DuckDBTypeId.ARRAY,
  DuckDBTypeId.STRUCT,
  DuckDBTypeId.MAP,
]);
const NUMBER_TYPES: ReadonlySet<DuckDBTypeId> = new Set([
  DuckDBTypeId.FLOAT,
  DuckDBTypeId.DOUBLE,
  DuckDBTypeId.DECIMAL,
]);

/** A DuckDB result as a ResultTable: JSON, lists, structs and maps as `json` columns. */
export function readerTable(reader: DuckDBResultReader): ResultTable {
  const types = reader.columnTypes();
  const typeIds = types.map((type) => type.typeId);
  const columns: Column[] = reader
    .columnNames()
    .map((name, i) => ({ name, type: types[i]?.alias === 'JSON' ? 'json' : columnType(typeIds[i]) }));
  const js = reader.getRowsJS();
  const json = reader.getRowsJson();
  const rows = js.map((row, r) =>
    row.map((value, c): Cell => {
      const typeId = typeIds[c];
      if (typeId === DuckDBTypeId.TIMESTAMP_TZ && value instanceof Date && !Number.isNaN(value.getTime())) {
        return value.toISOString();
      }
      const kind = columns[c]?.type ?? 'text';
      // Numbers and booleans from the JS conversion; every other type as DuckDB spells it.
      const nested = json[r]?.[c];
      if (kind === 'json' && typeId !== DuckDBTypeId.VARCHAR)
        return nested === null || nested === undefined ? null : JSON.stringify(nested);
      return toCell(kind === 'text' || kind === 'json' ? nested : value, kind);
    }),
  );
  return { columns, rows };
}

function columnType(typeId: DuckDBTypeId | undefined): ColumnType {
  if (typeId === undefined) return 'text';
  if (NESTED_TYPES.has(typeId)) return 'json';
  if (INTEGER_TYPES.has(typeId)) return 'integer';
  if (NUMBER_TYPES.has(typeId)) return 'number';
  return typeId === DuckDBTypeId.BOOLEAN ? 'boolean' : 'text';
}

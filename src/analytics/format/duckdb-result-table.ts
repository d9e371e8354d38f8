/**
 * A DuckDB result as the ResultTable every output format reads, every value exact:
 *   - integers as numbers, or as ExactNumbers of their digits past 2^53 (BIGINT, HUGEINT, UBIGINT);
 *     DECIMAL always as an ExactNumber of DuckDB's own text (123456789012345.123); FLOAT and DOUBLE as
 *     numbers: one JSON type per column, a number, and no digit lost to a double;
 *   - timestamps as ISO 8601 (2026-10-31T23:11:39.512, with Z for TIMESTAMPTZ; micro- and
 *     nanoseconds kept when there are any), INTERVAL as an ISO 8601 duration (P1DT2H3.5S): ./iso-text.ts;
 *   - JSON, lists, structs, maps and unions as `json` columns of JSON text written with the same
 *     exact numbers (nested in JSON output);
 *   - every other type as DuckDB spells it.
 */
import type { DuckDBResultReader, DuckDBValue } from '@duckdb/node-api';
import { duckdb } from '../../store/index.js';
import { ExactNumber, writeJson } from '../../util/json-writer.js';
import { isoDuration, isoTimestamp } from './iso-text.js';
import type { Cell, Column, ColumnType, ResultTable } from './result-table.js';

const {
  DuckDBArrayValue,
  DuckDBDecimalValue,
  DuckDBIntervalValue,
  DuckDBListValue,
  DuckDBMapValue,
  DuckDBStructValue,
  DuckDBTimestampMillisecondsValue,
  DuckDBTimestampNanosecondsValue,
  DuckDBTimestampSecondsValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBTypeId,
  DuckDBUnionValue,
} = duckdb();

const INTEGER_TYPES: ReadonlySet<number> = new Set([
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
const NESTED_TYPES: ReadonlySet<number> = new Set([
  DuckDBTypeId.LIST,
  DuckDBTypeId.ARRAY,
  DuckDBTypeId.STRUCT,
  DuckDBTypeId.MAP,
  DuckDBTypeId.UNION,
]);
const NUMBER_TYPES: ReadonlySet<number> = new Set([
  DuckDBTypeId.FLOAT,
  DuckDBTypeId.DOUBLE,
  DuckDBTypeId.DECIMAL,
]);

/** A DuckDB result as a ResultTable; `plan` marks the result of an EXPLAIN. */
export function readerTable(reader: DuckDBResultReader, plan = false): ResultTable {
  const types = reader.columnTypes();
  const columns: Column[] = reader
    .columnNames()
    .map((name, i) => ({ name, type: types[i]?.alias === 'JSON' ? 'json' : columnType(types[i]?.typeId) }));
  const rows = reader.getRows().map((row) =>
    row.map((value, c): Cell => {
      if (value === null) return null;
      if (columns[c]?.type === 'json' && typeof value !== 'string') return writeJson(plainValue(value));
      const plain = plainValue(value);
      return typeof plain === 'bigint' ? exactInteger(plain) : (plain as Cell);
    }),
  );
  return { columns, rows, ...(plan ? { plan } : {}) };
}

/**
 * A DuckDB value as what the JSON writer writes: numbers and booleans as they are, bigints as
 * bigints, DECIMAL as an ExactNumber, nested values as arrays and objects (a map as DuckDB's JSON
 * shape, [{key, value}]), timestamps and INTERVAL as ISO 8601, every other value as DuckDB's text.
 */
function plainValue(value: DuckDBValue): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof DuckDBDecimalValue) return new ExactNumber(value.toString());
  const timestamp = timestampText(value);
  if (timestamp !== undefined) return timestamp;
  if (value instanceof DuckDBIntervalValue) return isoDuration(value);
  if (value instanceof DuckDBListValue || value instanceof DuckDBArrayValue)
    return value.items.map(plainValue);
  if (value instanceof DuckDBStructValue)
    return Object.fromEntries(Object.entries(value.entries).map(([key, item]) => [key, plainValue(item)]));
  if (value instanceof DuckDBMapValue)
    return value.entries.map((entry) => ({ key: plainValue(entry.key), value: plainValue(entry.value) }));
  if (value instanceof DuckDBUnionValue) return { tag: value.tag, value: plainValue(value.value) };
  return value.toString();
}

/** Any of DuckDB's timestamps as ISO 8601 (./iso-text.ts); undefined for another value. */
function timestampText(value: object): string | undefined {
  if (value instanceof DuckDBTimestampTZValue)
    return value.isFinite ? isoTimestamp(value.micros, 'us', 'Z') : value.toString();
  if (value instanceof DuckDBTimestampValue)
    return value.isFinite ? isoTimestamp(value.micros, 'us', '') : value.toString();
  if (value instanceof DuckDBTimestampNanosecondsValue)
    return value.isFinite ? isoTimestamp(value.nanos, 'ns', '') : value.toString();
  if (value instanceof DuckDBTimestampMillisecondsValue)
    return value.isFinite ? isoTimestamp(value.millis, 'ms', '') : value.toString();
  if (value instanceof DuckDBTimestampSecondsValue)
    return value.isFinite ? isoTimestamp(value.seconds, 's', '') : value.toString();
  return undefined;
}

function exactInteger(value: bigint): Cell {
  return Number.isSafeInteger(Number(value)) ? Number(value) : new ExactNumber(value.toString());
}

function columnType(typeId: number | undefined): ColumnType {
  if (typeId === undefined) return 'text';
  if (NESTED_TYPES.has(typeId)) return 'json';
  if (INTEGER_TYPES.has(typeId)) return 'integer';
  if (NUMBER_TYPES.has(typeId)) return 'number';
  return typeId === DuckDBTypeId.BOOLEAN ? 'boolean' : 'text';
}

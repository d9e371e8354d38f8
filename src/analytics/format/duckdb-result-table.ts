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
import type { DuckDBResultReader, DuckDBTypeId, DuckDBValue } from '@duckdb/node-api';
import { duckdb } from '../../store/index.js';
import { ExactNumber, writeJson } from '../../util/json-writer.js';
import { isoDuration, isoTimestamp } from './iso-text.js';
import { type Cell, type Column, type ColumnType, type ResultTable, toCell } from './result-table.js';

let columnTypes: ReadonlyMap<DuckDBTypeId, ColumnType> | undefined;

/** A column's type by DuckDB's; every other type is `text`. Made at first use, as DuckDB loads. */
function columnTypeOf(id: DuckDBTypeId): ColumnType {
  const { DuckDBTypeId: Id } = duckdb();
  const of = (type: ColumnType, ids: readonly DuckDBTypeId[]) => ids.map((i) => [i, type] as const);
  columnTypes ??= new Map([
    ...of('integer', [Id.TINYINT, Id.SMALLINT, Id.INTEGER, Id.BIGINT, Id.HUGEINT]),
    ...of('integer', [Id.UTINYINT, Id.USMALLINT, Id.UINTEGER, Id.UBIGINT, Id.UHUGEINT]),
    ...of('number', [Id.FLOAT, Id.DOUBLE, Id.DECIMAL]),
    ...of('json', [Id.LIST, Id.ARRAY, Id.STRUCT, Id.MAP, Id.UNION]),
    ...of('boolean', [Id.BOOLEAN]),
  ]);
  return columnTypes.get(id) ?? 'text';
}

/** A DuckDB result as a ResultTable; `plan` marks the result of an EXPLAIN. */
export function readerTable(reader: DuckDBResultReader, plan = false): ResultTable {
  const types = reader.columnTypes();
  const columns: Column[] = reader.columnNames().map((name, i) => {
    const type = types[i];
    return {
      name,
      type: type?.alias === 'JSON' ? 'json' : type ? columnTypeOf(type.typeId) : 'text',
    };
  });
  const rows = reader.getRows().map((row) =>
    row.map((value, c): Cell => {
      if (value === null) return null;
      if (columns[c]?.type === 'json' && typeof value !== 'string') return writeJson(plainValue(value));
      const plain = plainValue(value);
      return typeof plain === 'bigint' ? toCell(plain) : (plain as Cell);
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
  const duck = duckdb();
  if (value instanceof duck.DuckDBDecimalValue) return new ExactNumber(value.toString());
  const timestamp = timestampText(value);
  if (timestamp !== undefined) return timestamp;
  if (value instanceof duck.DuckDBIntervalValue) return isoDuration(value);
  if (value instanceof duck.DuckDBListValue || value instanceof duck.DuckDBArrayValue)
    return value.items.map(plainValue);
  if (value instanceof duck.DuckDBStructValue)
    return Object.fromEntries(Object.entries(value.entries).map(([key, item]) => [key, plainValue(item)]));
  if (value instanceof duck.DuckDBMapValue)
    return value.entries.map((entry) => ({ key: plainValue(entry.key), value: plainValue(entry.value) }));
  if (value instanceof duck.DuckDBUnionValue) return { tag: value.tag, value: plainValue(value.value) };
  return value.toString();
}

/** Any of DuckDB's timestamps as ISO 8601 (./iso-text.ts); undefined for another value. */
function timestampText(value: object): string | undefined {
  const duck = duckdb();
  if (value instanceof duck.DuckDBTimestampTZValue)
    return value.isFinite ? isoTimestamp(value.micros, 'us', 'Z') : value.toString();
  if (value instanceof duck.DuckDBTimestampValue)
    return value.isFinite ? isoTimestamp(value.micros, 'us', '') : value.toString();
  if (value instanceof duck.DuckDBTimestampNanosecondsValue)
    return value.isFinite ? isoTimestamp(value.nanos, 'ns', '') : value.toString();
  if (value instanceof duck.DuckDBTimestampMillisecondsValue)
    return value.isFinite ? isoTimestamp(value.millis, 'ms', '') : value.toString();
  if (value instanceof duck.DuckDBTimestampSecondsValue)
    return value.isFinite ? isoTimestamp(value.seconds, 's', '') : value.toString();
  return undefined;
}

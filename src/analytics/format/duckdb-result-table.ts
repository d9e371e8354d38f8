/**
 * A DuckDB result as the ResultTable every output format reads, every value exact:
 *   - integers as numbers, or as ExactNumbers of their digits past 2^53 (BIGINT, HUGEINT, UBIGINT);
 *     DECIMAL always as an ExactNumber of DuckDB's own text (123456789012345.123); FLOAT and DOUBLE as
 *     numbers: one JSON type per column, a number, and no digit lost to a double;
 *   - TIMESTAMPTZ as ISO 8601 UTC (microseconds kept when there are any), INTERVAL as an ISO 8601
 *     duration (P1DT2H3.5S);
 *   - JSON, lists, structs, maps and unions as `json` columns of JSON text written with the same
 *     exact numbers (nested in JSON output);
 *   - every other type as DuckDB spells it.
 */
import type { DuckDBResultReader, DuckDBValue } from '@duckdb/node-api';
import {
  DuckDBArrayValue,
  DuckDBDecimalValue,
  DuckDBIntervalValue,
  DuckDBListValue,
  DuckDBMapValue,
  DuckDBStructValue,
  DuckDBTimestampTZValue,
  DuckDBTypeId,
  DuckDBUnionValue,
} from '../../load/duckdb.js';
import { ExactNumber, writeJson } from '../../util/json-writer.js';
import type { Cell, Column, ColumnType, ResultTable } from './result-table.js';

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
  DuckDBTypeId.UNION,
]);
const NUMBER_TYPES: ReadonlySet<DuckDBTypeId> = new Set([
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
 * shape, [{key, value}]), TIMESTAMPTZ and INTERVAL as ISO 8601, every other value as DuckDB's text.
 */
function plainValue(value: DuckDBValue): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof DuckDBDecimalValue) return new ExactNumber(value.toString());
  if (value instanceof DuckDBTimestampTZValue) return isoInstant(value);
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

function exactInteger(value: bigint): Cell {
  return Number.isSafeInteger(Number(value)) ? Number(value) : new ExactNumber(value.toString());
}

/** ISO 8601 UTC, with milliseconds, or microseconds when the instant has them; infinity as DuckDB spells it. */
function isoInstant(value: DuckDBTimestampTZValue): string {
  if (!value.isFinite) return value.toString();
  const micros = value.micros;
  const millis = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const date = new Date(Number(millis));
  if (Number.isNaN(date.getTime())) return value.toString();
  const iso = date.toISOString();
  const extra = micros - millis * 1000n;
  return extra === 0n ? iso : `${iso.slice(0, -1)}${String(extra).padStart(3, '0')}Z`;
}

const MICROS_PER = { hour: 3_600_000_000n, minute: 60_000_000n, second: 1_000_000n } as const;

/**
 * An INTERVAL as an ISO 8601 duration: P1Y2M3DT4H5M6.5S, PT0S for none. DuckDB keeps months, days
 * and microseconds apart, each with its own sign, so each part is written with its own sign (as
 * PostgreSQL's iso_8601 interval style does: P-1Y-2M3DT-4H).
 */
export function isoDuration(value: {
  readonly months: number;
  readonly days: number;
  readonly micros: bigint;
}): string {
  const years = Math.trunc(value.months / 12);
  const months = value.months % 12;
  const date = [part(years, 'Y'), part(months, 'M'), part(value.days, 'D')].join('');
  let rest = value.micros;
  const hours = rest / MICROS_PER.hour;
  rest -= hours * MICROS_PER.hour;
  const minutes = rest / MICROS_PER.minute;
  rest -= minutes * MICROS_PER.minute;
  const time = [part(hours, 'H'), part(minutes, 'M'), seconds(rest)].join('');
  if (date === '' && time === '') return 'PT0S';
  return `P${date}${time === '' ? '' : `T${time}`}`;
}

function part(n: number | bigint, unit: string): string {
  return n === 0 || n === 0n ? '' : `${n}${unit}`;
}

function seconds(micros: bigint): string {
  if (micros === 0n) return '';
  const sign = micros < 0n ? '-' : '';
  const abs = micros < 0n ? -micros : micros;
  const whole = abs / MICROS_PER.second;
  const fraction = String(abs % MICROS_PER.second)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${sign}${whole}${fraction === '' ? '' : `.${fraction}`}S`;
}

function columnType(typeId: DuckDBTypeId | undefined): ColumnType {
  if (typeId === undefined) return 'text';
  if (NESTED_TYPES.has(typeId)) return 'json';
  if (INTEGER_TYPES.has(typeId)) return 'integer';
  if (NUMBER_TYPES.has(typeId)) return 'number';
  return typeId === DuckDBTypeId.BOOLEAN ? 'boolean' : 'text';
}

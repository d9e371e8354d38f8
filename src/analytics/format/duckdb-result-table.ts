/**
 * A DuckDB result as the ResultTable every output format reads, every value exact:
 *   - integers as numbers, or as ExactNumbers of their digits past 2^53 (BIGINT, HUGEINT, UBIGINT);
 *     DECIMAL always as an ExactNumber of DuckDB's own text (123456789012345.123); FLOAT and DOUBLE as
 *     numbers: one JSON type per column, a number, and no digit lost to a double;
 *   - timestamps, dates and INTERVAL as ISO 8601 text (below);
 *   - JSON, lists, structs, maps and unions as `json` columns of JSON text written with the same
 *     exact numbers (nested in JSON output);
 *   - every other type as DuckDB spells it.
 */
import type { DuckDBResultReader, DuckDBTypeId, DuckDBValue } from '@duckdb/node-api';
import { duckdb } from '../../store/index.js';
import { ExactNumber, writeJson } from '../../util/json-writer.js';
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
  const columns = reader.columnNames().map((name, i): Column => {
    const type = types[i];
    return { name, type: type?.alias === 'JSON' ? 'json' : type ? columnTypeOf(type.typeId) : 'text' };
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

/** A DuckDB value as the JSON writer takes it (see the top); a map as DuckDB's JSON shape, [{key, value}]. */
function plainValue(value: DuckDBValue): unknown {
  if (value === null || typeof value !== 'object') return value;
  const duck = duckdb();
  if (value instanceof duck.DuckDBDecimalValue) return new ExactNumber(value.toString());
  const timestamp = timestampText(value);
  if (timestamp !== undefined) return timestamp;
  if (value instanceof duck.DuckDBDateValue) return dateText(value);
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

/** Any of DuckDB's timestamps as ISO 8601 (isoTimestamp); undefined for another value. */
function timestampText(value: object): string | undefined {
  const duck = duckdb();
  const iso = (units: bigint, precision: TimestampPrecision, zone: 'Z' | '' = '') =>
    'isFinite' in value && value.isFinite ? isoTimestamp(units, precision, zone) : String(value);
  if (value instanceof duck.DuckDBTimestampTZValue) return iso(value.micros, 'us', 'Z');
  if (value instanceof duck.DuckDBTimestampValue) return iso(value.micros, 'us');
  if (value instanceof duck.DuckDBTimestampNanosecondsValue) return iso(value.nanos, 'ns');
  if (value instanceof duck.DuckDBTimestampMillisecondsValue) return iso(value.millis, 'ms');
  if (value instanceof duck.DuckDBTimestampSecondsValue) return iso(value.seconds, 's');
  return undefined;
}

/** A DATE as the date part of its midnight's timestamp (isoTimestamp): `2026-10-31`, `-000043-03-15`, `infinity`. */
function dateText(value: { readonly days: number; readonly isFinite: boolean }): string {
  if (!value.isFinite) return value.days > 0 ? 'infinity' : '-infinity';
  return isoTimestamp(BigInt(value.days) * 86_400n, 's', '').split('T')[0] ?? '';
}

/*
 * A timestamp as `2026-10-31T23:11:39.512`: milliseconds always, microseconds or nanoseconds when it
 * has them; `Z` after a TIMESTAMPTZ (an instant in UTC), nothing after a TIMESTAMP (a wall-clock
 * time of no zone, so no zone is claimed); years outside 0000-9999 in ISO's expanded form
 * (`+012345`, `-000044`, astronomical: year 0 is 1 BC); infinity as DuckDB spells it (`infinity`,
 * `-infinity`). Computed from the stored integer, so no digit and no year is lost.
 */

const PER_SECOND = { s: 1n, ms: 1_000n, us: 1_000_000n, ns: 1_000_000_000n } as const;
type TimestampPrecision = keyof typeof PER_SECOND;

/** Seconds in 400 Gregorian years, after which the calendar repeats, leap days and all. */
const SECONDS_PER_CYCLE = 146_097n * 86_400n;

/**
 * `units` since 1970-01-01 00:00:00 at `precision` as ISO 8601, ending with `zone` (above). DuckDB's
 * years reach past Date's, so Date reads the instant less whole 400-year cycles, added back to the year.
 */
function isoTimestamp(units: bigint, precision: TimestampPrecision, zone: 'Z' | ''): string {
  const perSecond = PER_SECOND[precision];
  const seconds = floorDiv(units, perSecond);
  const cycles = floorDiv(seconds, SECONDS_PER_CYCLE);
  const date = new Date(Number(seconds - cycles * SECONDS_PER_CYCLE) * 1000);
  const year = date.getUTCFullYear() + 400 * Number(cycles);
  const fraction = fractionText(units - seconds * perSecond, precision);
  return `${isoYear(year)}${date.toISOString().slice(4, 19)}${fraction}${zone}`;
}

/** `.SSS` always; `.SSSSSS` or `.SSSSSSSSS` when the digits past the milliseconds are not zero. */
function fractionText(fraction: bigint, precision: TimestampPrecision): string {
  const digits = String(PER_SECOND[precision]).length - 1;
  const text = String(fraction).padStart(digits, '0').padEnd(9, '0');
  const shown = text.endsWith('000000') ? 3 : text.endsWith('000') ? 6 : 9;
  return `.${text.slice(0, shown)}`;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
}

function isoYear(year: number): string {
  if (year >= 0 && year <= 9999) return String(year).padStart(4, '0');
  return `${year < 0 ? '-' : '+'}${String(Math.abs(year)).padStart(6, '0')}`;
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
  const hours = value.micros / MICROS_PER.hour;
  const minutes = (value.micros % MICROS_PER.hour) / MICROS_PER.minute;
  const time = [part(hours, 'H'), part(minutes, 'M'), seconds(value.micros % MICROS_PER.minute)].join('');
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

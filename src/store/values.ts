/** Conversions at the DuckDB boundary: JS parameters into DuckDB values, rows into JSON-friendly objects. */
import type { DuckDBMaterializedResult, DuckDBValue } from '@duckdb/node-api';
import { type DuckDBApi, duckdb } from './duckdb.js';

export type SqlParams = readonly unknown[] | Readonly<Record<string, unknown>>;

/** DuckDB's value classes, whose objects are bound as they are. */
const valueClasses = (d: DuckDBApi) =>
  [
    d.DuckDBArrayValue,
    d.DuckDBBlobValue,
    d.DuckDBDateValue,
    d.DuckDBDecimalValue,
    d.DuckDBIntervalValue,
    d.DuckDBListValue,
    d.DuckDBMapValue,
    d.DuckDBStructValue,
    d.DuckDBTimestampTZValue,
    d.DuckDBTimestampValue,
    d.DuckDBUUIDValue,
  ] as const;

let VALUE_CLASSES: ReturnType<typeof valueClasses> | undefined;

/**
 * JS → DuckDB: undefined → NULL, Date → TIMESTAMPTZ, array → LIST, other plain objects → JSON text,
 * DuckDB value objects (listValue(...), ...) as they are.
 */
function toDuckValue(value: unknown): DuckDBValue {
  if (value === undefined || value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'bigint':
      return value;
    case 'object':
      if (value instanceof Date) return duckdb().timestampTZValue(BigInt(value.getTime()) * 1000n);
      if (Array.isArray(value)) return duckdb().listValue(value.map(toDuckValue));
      VALUE_CLASSES ??= valueClasses(duckdb());
      if (VALUE_CLASSES.some((cls) => value instanceof cls)) return value as DuckDBValue;
      return JSON.stringify(value);
    default:
      throw new TypeError(`cannot bind a ${typeof value} as an SQL parameter`);
  }
}

export function toDuckParams(
  params: SqlParams | undefined,
): DuckDBValue[] | Record<string, DuckDBValue> | undefined {
  if (params === undefined) return undefined;
  if (Array.isArray(params)) return params.map(toDuckValue);
  return Object.fromEntries(Object.entries(params).map(([key, value]) => [key, toDuckValue(value)]));
}

/** Row values from DuckDB's JS conversion, made JSON-friendly: bigint → number when safe. */
export function plainRow(row: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(row)) {
    if (typeof value === 'bigint') row[key] = toSafeNumber(value);
    else if (Array.isArray(value)) row[key] = value.map((v) => (typeof v === 'bigint' ? toSafeNumber(v) : v));
  }
  return row;
}

function toSafeNumber(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;
}

/** A materialized result's rows as plain objects (plainRow), read from its chunks in place (no fetch per chunk). */
export function rowObjects<T = Record<string, unknown>>(result: DuckDBMaterializedResult): T[] {
  const names = result.deduplicatedColumnNames();
  const rows: T[] = [];
  for (let c = 0; c < result.chunkCount; c++) {
    const chunk = result.getChunk(c);
    const { JSDuckDBValueConverter } = duckdb();
    for (let r = 0; r < chunk.rowCount; r++) {
      const row: Record<string, unknown> = {};
      chunk.visitRowValues(r, (value, _row, column, type) => {
        row[names[column] as string] = JSDuckDBValueConverter(value, type, JSDuckDBValueConverter);
      });
      rows.push(plainRow(row) as T);
    }
  }
  return rows;
}

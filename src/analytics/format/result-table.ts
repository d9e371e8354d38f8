/**
 * A query result as every output format sees it: named, typed columns in order, and rows of plain
 * cells. Reports and `query` both produce one; the formatters (table, CSV, JSON, HTML) only read it.
 */
import { ExactNumber, JsonText, writeJson } from '../../util/json-writer.js';

/** An ExactNumber (a DECIMAL, an integer past 2^53) shows as its text; JSON writes it as a number literal. */
export type Cell = string | number | boolean | ExactNumber | null;

/**
 * `integer` and `number` cells are right-aligned in a terminal table; `decimals` fixes their digits
 * there. `json` cells hold JSON text (DuckDB JSON, lists, structs, maps): text in a table and CSV,
 * nested values in JSON output.
 */
export type ColumnType = 'text' | 'integer' | 'number' | 'boolean' | 'json';

export interface Column {
  readonly name: string;
  readonly type: ColumnType;
  /** Digits after the point in the terminal table (CSV and JSON keep the full value). */
  readonly decimals?: number;
}

export interface ResultTable {
  readonly columns: readonly Column[];
  readonly rows: readonly (readonly Cell[])[];
  /** A row shown apart after the others (the billing total); not counted as a row. */
  readonly footer?: readonly Cell[];
  /** An EXPLAIN's result: the terminal table prints its plan text whole, never cut. */
  readonly plan?: boolean;
}

export function tableFromObjects(
  columns: readonly Column[],
  objects: readonly Record<string, unknown>[],
): ResultTable {
  return {
    columns,
    rows: objects.map((object) => columns.map((column) => toCell(object[column.name], column.type))),
  };
}

/**
 * Rows as objects keyed by column name, for the JSON writer: `json` cells are embedded as the JSON
 * text they hold (nested values, numbers exact). A repeated column name keeps its last value.
 */
export function tableToObjects(table: ResultTable): Record<string, unknown>[] {
  return table.rows.map((row) => {
    const object: Record<string, unknown> = {};
    table.columns.forEach((column, i) => {
      const cell = row[i] ?? null;
      // DuckDB's JSON type accepts nothing unparsable; a hand-made cell that is not JSON stays text.
      object[column.name] =
        column.type === 'json' && typeof cell === 'string' ? orText(cell, JsonText) : cell;
    });
    return object;
  });
}

/**
 * A value of DuckDB's JS conversion as a cell: a bigint past 2^53 as an ExactNumber of its digits
 * (never rounded), Date as ISO 8601 UTC, lists, structs and maps as JSON text, bytes as hex.
 */
export function toCell(value: unknown, type: ColumnType = 'text'): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint')
    return Number.isSafeInteger(Number(value)) ? Number(value) : new ExactNumber(value.toString());
  if (typeof value === 'number' || typeof value === 'boolean' || value instanceof ExactNumber) return value;
  // A numeric column's text (DuckDB's spelling of a DECIMAL) is the exact number it spells.
  if (typeof value === 'string')
    return type === 'integer' || type === 'number' ? orText(value, ExactNumber) : value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  return writeJson(value);
}

/** `text` as a `Made` (which refuses text it cannot take), or as it is when refused. */
function orText<T>(text: string, Made: new (text: string) => T): T | string {
  try {
    return new Made(text);
  } catch {
    return text;
  }
}

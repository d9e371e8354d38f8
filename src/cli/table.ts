/** Row objects as a terminal table in the analytics layout: numbers right-aligned, fractions to 2 places. */
import { type Column, tableFromObjects } from '../analytics/format/result-table.js';
import { formatTextTable } from '../analytics/format/text-table.js';
import { jsonLine } from '../util/snake-case.js';

export function renderTable(rows: readonly Record<string, unknown>[]): string {
  const first = rows[0];
  if (!first) return '(no rows)\n';
  const columns: Column[] = Object.keys(first).map((name) => columnOf(name, rows));
  return formatTextTable(tableFromObjects(columns, rows));
}

function columnOf(name: string, rows: readonly Record<string, unknown>[]): Column {
  const values = rows.map((row) => row[name]).filter((v) => v !== null && v !== undefined);
  const numeric = values.length > 0 && values.every((v) => typeof v === 'number' || typeof v === 'bigint');
  if (!numeric) return { name, type: 'text' };
  return values.every((v) => typeof v === 'bigint' || Number.isInteger(v))
    ? { name, type: 'integer' }
    : { name, type: 'number', decimals: 2 };
}

/** `--json`: the rows as one JSON array with snake_case keys; otherwise `asTable(rows)` as a table. */
export function writeRows<T>(
  stdout: NodeJS.WritableStream,
  json: boolean,
  rows: readonly T[],
  asTable: (row: T) => Record<string, unknown>,
): void {
  stdout.write(json ? jsonLine(rows) : renderTable(rows.map(asTable)));
}

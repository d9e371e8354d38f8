/**
 * The terminal format: aligned columns under a header, numbers right-aligned with the column's
 * fixed decimals, NULL spelled out, and a row count. Long or multi-line text is cut so that a row
 * stays on one line; CSV and JSON carry the full values. An EXPLAIN's plan is printed whole, never
 * cut. A footer row (a total) follows a rule, and notes (the billing report's as-of and what it
 * could not count) follow the row count.
 */
import { ExactNumber } from '../../util/json-writer.js';
import { fixedDecimals } from './decimal-text.js';
import type { Cell, Column, ResultTable } from './result-table.js';

/** Longest cell shown, in characters; longer text ends with an ellipsis. */
const MAX_CELL_WIDTH = 60;

export function formatTextTable(table: ResultTable, notes: readonly string[] = []): string {
  if (table.plan) return planText(table);
  const header = table.columns.map((column) => column.name);
  const cells = (row: readonly Cell[]) => table.columns.map((column, i) => showCell(row[i] ?? null, column));
  const body = table.rows.map(cells);
  const footer = table.footer ? cells(table.footer) : undefined;
  const widths = header.map((name, i) =>
    Math.max(name.length, ...[...body, ...(footer ? [footer] : [])].map((row) => row[i]?.length ?? 0)),
  );
  const right = table.columns.map((column) => column.type === 'integer' || column.type === 'number');
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (right[i] ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const count = table.rows.length === 1 ? '(1 row)' : `(${table.rows.length} rows)`;
  const rule = line(widths.map((w) => '-'.repeat(w)));
  const foot = footer ? [rule, line(footer)] : [];
  return [line(header), rule, ...body.map(line), ...foot, count, ...notes, ''].join('\n');
}

function showCell(cell: Cell, column: Column): string {
  if (cell === null) return 'NULL';
  if (typeof cell === 'number' || cell instanceof ExactNumber) {
    return column.decimals === undefined ? String(cell) : fixedDecimals(cell, column.decimals);
  }
  const text = String(cell)
    .replace(/\r?\n|\r/g, ' ')
    .replace(/\t/g, ' ');
  return text.length > MAX_CELL_WIDTH ? `${text.slice(0, MAX_CELL_WIDTH - 1)}…` : text;
}

/** An EXPLAIN's result as the DuckDB CLI prints it: each row's plan (its last column) whole. */
function planText(table: ResultTable): string {
  return table.rows.map((row) => `${String(row.at(-1) ?? '').trimEnd()}\n`).join('');
}

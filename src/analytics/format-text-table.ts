/**
 * The terminal format: aligned columns under a header, numbers right-aligned with the column's
 * fixed decimals, NULL spelled out, and a row count. Long or multi-line text is cut so that a row
 * stays on one line; CSV and JSON carry the full values.
 */
import type { Cell, Column, ResultTable } from './result-table.js';

/** Longest cell shown, in characters; longer text ends with an ellipsis. */
const MAX_CELL_WIDTH = 60;

export function formatTextTable(table: ResultTable): string {
  const header = table.columns.map((column) => column.name);
  const body = table.rows.map((row) => table.columns.map((column, i) => showCell(row[i] ?? null, column)));
  const widths = header.map((name, i) =>
    Math.max(name.length, ...body.map((cells) => cells[i]?.length ?? 0)),
  );
  const right = table.columns.map((column) => column.type === 'integer' || column.type === 'number');
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (right[i] ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const count = table.rows.length === 1 ? '(1 row)' : `(${table.rows.length} rows)`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line), count, ''].join('\n');
}

function showCell(cell: Cell, column: Column): string {
  if (cell === null) return 'NULL';
  if (typeof cell === 'number') {
    return column.decimals === undefined || !Number.isFinite(cell)
      ? String(cell)
      : cell.toFixed(column.decimals);
  }
  const text = String(cell)
    .replace(/\r?\n|\r/g, ' ')
    .replace(/\t/g, ' ');
  return text.length > MAX_CELL_WIDTH ? `${text.slice(0, MAX_CELL_WIDTH - 1)}…` : text;
}

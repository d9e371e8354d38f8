/**
 * The terminal format: columns padded by display width (./text-width.ts) under a header, numbers
 * right-aligned with one number of decimals per column (its fixed decimals, else its longest
 * fraction), NULL spelled out, long or multi-line text cut to one line, then a footer row after a
 * rule, the row count and notes. An EXPLAIN's plan is printed whole.
 */
import { ExactNumber } from '../../util/json-writer.js';
import { fixedDecimals } from './decimal-text.js';
import type { Cell, Column, ResultTable } from './result-table.js';
import { cutToWidth, displayWidth, padToWidth } from './text-width.js';

/** Widest cell shown, in terminal columns; longer text ends with an ellipsis. */
const MAX_CELL_WIDTH = 60;

/** A plain decimal's text (no exponent, not NaN): the one shape whose fraction can be padded. */
const PLAIN_DECIMAL = /^-?\d+(?:\.(\d+))?$/;

export function formatTextTable(table: ResultTable, notes: readonly string[] = []): string {
  if (table.plan) return planText(table);
  const header = table.columns.map((column) => column.name);
  const all = [...table.rows, ...(table.footer ? [table.footer] : [])];
  const decimals = table.columns.map((column, i) => column.decimals ?? longestFraction(column, all, i));
  const cells = (row: readonly Cell[]) =>
    table.columns.map((column, i) => showCell(row[i] ?? null, column, decimals[i]));
  const body = table.rows.map(cells);
  const footer = table.footer ? cells(table.footer) : undefined;
  const widths = header.map((name, i) =>
    Math.max(
      displayWidth(name),
      ...[...body, ...(footer ? [footer] : [])].map((row) => displayWidth(row[i] ?? '')),
    ),
  );
  const right = table.columns.map((column) => column.type === 'integer' || column.type === 'number');
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => padToWidth(cell, widths[i] ?? 0, right[i] ?? false))
      .join('  ')
      .trimEnd();
  const count = table.rows.length === 1 ? '(1 row)' : `(${table.rows.length} rows)`;
  const rule = line(widths.map((w) => '-'.repeat(w)));
  const foot = footer ? [rule, line(footer)] : [];
  return [line(header), rule, ...body.map(line), ...foot, count, ...notes, ''].join('\n');
}

/** The most digits after the point among a `number` column's plain decimals; undefined for others. */
function longestFraction(column: Column, rows: readonly (readonly Cell[])[], i: number): number | undefined {
  if (column.type !== 'number') return undefined;
  let longest: number | undefined;
  for (const row of rows) {
    const cell = row[i];
    if (typeof cell !== 'number' && !(cell instanceof ExactNumber)) continue;
    const match = PLAIN_DECIMAL.exec(String(cell));
    if (match) longest = Math.max(longest ?? 0, match[1]?.length ?? 0);
  }
  return longest;
}

function showCell(cell: Cell, column: Column, decimals: number | undefined): string {
  if (cell === null) return 'NULL';
  if (typeof cell === 'number' || cell instanceof ExactNumber) {
    if (column.decimals !== undefined) return fixedDecimals(cell, column.decimals);
    return decimals === undefined ? String(cell) : padFraction(String(cell), decimals);
  }
  const text = String(cell)
    .replace(/\r?\n|\r/g, ' ')
    .replace(/\t/g, ' ');
  return cutToWidth(text, MAX_CELL_WIDTH);
}

/** A plain decimal's text with zeros added to reach `decimals` digits after the point; other text as it is. */
function padFraction(text: string, decimals: number): string {
  const match = PLAIN_DECIMAL.exec(text);
  if (!match || decimals === 0) return text;
  const fraction = match[1] ?? '';
  return `${text}${fraction === '' ? '.' : ''}${'0'.repeat(decimals - fraction.length)}`;
}

/** An EXPLAIN's result as the DuckDB CLI prints it: each row's plan (its last column) whole. */
function planText(table: ResultTable): string {
  return table.rows.map((row) => `${String(row.at(-1) ?? '').trimEnd()}\n`).join('');
}

/**
 * CSV for other programs (RFC 4180 quoting, `\n` line ends): a header row of column names, then
 * one line per row. Numbers are written in full (no rounding beyond what the query did), NULL as
 * an empty field.
 */
import type { Cell, ResultTable } from './result-table.js';

export function formatCsv(table: ResultTable): string {
  const lines = [table.columns.map((column) => csvField(column.name))];
  for (const row of table.rows) lines.push(table.columns.map((_column, i) => csvField(row[i] ?? null)));
  return `${lines.map((fields) => fields.join(',')).join('\n')}\n`;
}

function csvField(cell: Cell): string {
  if (cell === null) return '';
  const text = String(cell);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

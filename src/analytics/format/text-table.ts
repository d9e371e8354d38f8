/**
 * The terminal format: columns padded by display width (below) under a header, numbers
 * right-aligned with one number of decimals per column (its fixed decimals, else its longest
 * fraction), NULL spelled out, long or multi-line text cut to one line, then a footer row after a
 * rule, the row count and notes. An EXPLAIN's plan is printed whole.
 */
import { ExactNumber } from '../../util/json-writer.js';
import { fixedDecimals } from './decimal-text.js';
import type { Cell, Column, ResultTable } from './result-table.js';

/** Widest cell shown, in terminal columns; longer text ends with an ellipsis. */
const MAX_CELL_WIDTH = 60;

/** A plain decimal's text (no exponent, not NaN): the one shape whose fraction can be padded. */
const PLAIN_DECIMAL = /^-?\d+(?:\.(\d+))?$/;

export function formatTextTable(table: ResultTable, notes: readonly string[] = []): string {
  if (table.plan) return planText(table);
  const header = table.columns.map((column) => column.name);
  const all = [...table.rows, ...(table.footer ? [table.footer] : [])];
  const decimals = table.columns.map((column, i) => column.decimals ?? longestFraction(column, all, i));
  const shown = all.map((row) =>
    table.columns.map((column, i) => showCell(row[i] ?? null, column, decimals[i])),
  );
  const body = shown.slice(0, table.rows.length);
  const footer = table.footer ? shown.at(-1) : undefined;
  const widths = header.map((name, i) =>
    shown.reduce((widest, row) => Math.max(widest, displayWidth(row[i] ?? '')), displayWidth(name)),
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
  return cutToWidth(String(cell).replace(/\r?\n|\r|\t/g, ' '), MAX_CELL_WIDTH);
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

/*
 * Display width: a grapheme cluster takes 2 terminal columns when it is East Asian Wide or
 * Fullwidth (CJK ideographs, kana, Hangul, fullwidth forms) or an emoji shown as one, 0 when it is
 * a lone combining mark, a control or a zero-width character, and 1 otherwise (East Asian
 * Ambiguous ones included, as terminals outside CJK locales show them).
 */

/** Printable ASCII only: one column per character, no segmenting needed. */
const PLAIN = /^[\x20-\x7e]*$/;

/** The first code point of a cluster that takes no column. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cc}\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]/u;

/**
 * East Asian Wide and Fullwidth blocks (Unicode's EastAsianWidth.txt, W and F, by block), and
 * emoji presented as emoji; U+FE0F asks for the emoji presentation of the character before it.
 */
const WIDE = new RegExp(
  [
    '^(?:[\\u1100-\\u115f\\u231a\\u231b\\u2329\\u232a\\u2e80-\\u303e\\u3041-\\u33ff\\u3400-\\u4dbf',
    '\\u4e00-\\u9fff\\ua000-\\ua4cf\\ua960-\\ua97f\\uac00-\\ud7a3\\uf900-\\ufaff\\ufe10-\\ufe19',
    '\\ufe30-\\ufe6f\\uff00-\\uff60\\uffe0-\\uffe6\\u{16fe0}-\\u{16fe4}\\u{17000}-\\u{18cff}',
    '\\u{1b000}-\\u{1b2ff}\\u{1f200}-\\u{1f2ff}\\u{20000}-\\u{2fffd}\\u{30000}-\\u{3fffd}]',
    '|\\p{Emoji_Presentation})|\\ufe0f',
  ].join(''),
  'u',
);

/** Made on the first text that needs it: most tables are ASCII, and a command starts faster without. */
let segmenter: Intl.Segmenter | undefined;

function clusters(text: string): Iterable<Intl.SegmentData> {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return segmenter.segment(text);
}

/** Terminal columns `text` takes (no tabs or line breaks expected: the table replaces them). */
export function displayWidth(text: string): number {
  if (PLAIN.test(text)) return text.length;
  let width = 0;
  for (const { segment } of clusters(text)) width += clusterWidth(segment);
  return width;
}

/** `text` cut to at most `width` columns, whole clusters only, ending with `…` when cut. */
export function cutToWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let kept = '';
  let used = 0;
  for (const { segment } of clusters(text)) {
    const next = clusterWidth(segment);
    if (used + next > width - 1) break;
    kept += segment;
    used += next;
  }
  return `${kept}…`;
}

function padToWidth(text: string, width: number, right: boolean): string {
  const pad = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return right ? `${pad}${text}` : `${text}${pad}`;
}

function clusterWidth(cluster: string): number {
  if (ZERO_WIDTH.test(cluster)) return 0;
  return WIDE.test(cluster) ? 2 : 1;
}

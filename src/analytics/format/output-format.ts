/**
 * The output formats of `report` and `query`, and the one function that renders a table in any
 * of them; HTML needs a page title, the others only the table. JSON and CSV are written here, the
 * terminal table and HTML in ./text-table.ts and ./html.ts.
 */
import { writeJson } from '../../util/json-writer.js';
import { formatHtmlPage } from './html.js';
import { type Cell, type ResultTable, tableToObjects } from './result-table.js';
import { formatTextTable } from './text-table.js';

export const OUTPUT_FORMATS = ['table', 'csv', 'json', 'html'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface PageInfo {
  readonly title: string;
  readonly subtitle?: string;
}

/** JSON: an array of row objects keyed by column name, pretty-printed, numbers exact, newline-ended. */
export function formatJson(table: ResultTable): string {
  return `${writeJson(tableToObjects(table), { indent: 2 })}\n`;
}

export function render(table: ResultTable, format: OutputFormat, page: PageInfo): string {
  switch (format) {
    case 'table':
      return formatTextTable(table);
    case 'csv':
      return formatCsv(table);
    case 'json':
      return formatJson(table);
    case 'html':
      return formatHtmlPage({ ...page, table });
  }
}

/**
 * CSV for other programs and spreadsheets (RFC 4180 quoting, `\n` line ends): optional `# ` comment
 * lines, a header row of column names, one line per row, and the table's footer (a total row) last.
 * Numbers are written in full (no rounding beyond what the query did), NULL as an empty field.
 */
export interface CsvOptions {
  /** Start with a UTF-8 byte order mark, so that Excel reads the file as UTF-8. Default false. */
  readonly bom?: boolean;
  /** Lines written first, each as `# line` (readers skip them with e.g. pandas' comment='#'). */
  readonly comments?: readonly string[];
  /**
   * Give a text cell a spreadsheet would run as a formula (= + - @ tab or CR first) a leading
   * apostrophe (OWASP's advice). Default false: `query` output is data; the billing report sets it.
   */
  readonly guardFormulas?: boolean;
}

const FORMULA_START = /^[=+\-@\t\r]/;

export function formatCsv(table: ResultTable, options: CsvOptions = {}): string {
  const text = (cell: Cell, i: number) =>
    csvField(cell, options.guardFormulas === true && table.columns[i]?.type === 'text');
  const lines = (options.comments ?? []).map((line) => `# ${line.replace(/\r?\n|\r/g, ' ')}`);
  lines.push(table.columns.map((column) => csvField(column.name, options.guardFormulas === true)).join(','));
  for (const row of [...table.rows, ...(table.footer ? [table.footer] : [])]) {
    lines.push(table.columns.map((_column, i) => text(row[i] ?? null, i)).join(','));
  }
  return `${options.bom ? '\uFEFF' : ''}${lines.join('\n')}\n`;
}

function csvField(cell: Cell, guard: boolean): string {
  if (cell === null) return '';
  const raw = String(cell);
  const text = guard && FORMULA_START.test(raw) ? `'${raw}` : raw;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

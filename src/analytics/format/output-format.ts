/**
 * The output formats of `report` and `query`, and the one function that renders a table in any of
 * them. JSON, CSV and HTML are written here, the terminal table in ./text-table.ts.
 */
import { ExactNumber, writeJson } from '../../util/json-writer.js';
import { fixedDecimals } from './decimal-text.js';
import { type Cell, type Column, type ResultTable, tableToObjects } from './result-table.js';
import { formatTextTable } from './text-table.js';

export const OUTPUT_FORMATS = ['table', 'csv', 'json', 'html'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** JSON: an array of row objects keyed by column name, pretty-printed, numbers exact, newline-ended. */
export function formatJson(table: ResultTable): string {
  return `${writeJson(tableToObjects(table), { indent: 2 })}\n`;
}

export function render(
  table: ResultTable,
  format: OutputFormat,
  page: Pick<HtmlPage, 'title' | 'subtitle'>,
): string {
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

/*
 * HTML: a self-contained page (no script, no external style or font) of the fields below, each
 * where its doc says, the table last with its footer. All text is escaped; the markup is also
 * well-formed XML (every element closed), which keeps it easy to check and to parse.
 */

export interface HtmlPage {
  readonly title: string;
  /** A line under the title, e.g. the filters that made the report. */
  readonly subtitle?: string;
  /** A line in bold under the subtitle (and the alert), above the fold: the totals, money first. */
  readonly headline?: string;
  /** Inline SVG markup; trusted (built from escaped text), inserted as is. */
  readonly chart?: string;
  readonly table: ResultTable;
  /** Lines shown in a box above the chart: how true the figures are (as of, not counted, warnings). */
  readonly notes?: readonly string[];
  /** A banner in red above everything, e.g. that the mirror is stale. */
  readonly alert?: string;
  /** Lines right under the table, about its numbers (rows that do not add up to the total). */
  readonly footnotes?: readonly string[];
}

const STYLE = [
  'body{font-family:system-ui,sans-serif;margin:2rem;color:#222}',
  'h1{font-size:1.4rem;margin-bottom:.2rem}',
  'p.subtitle{color:#555;margin-top:0}',
  'p.total{font-size:1.2rem;font-weight:bold;margin:.6rem 0}',
  'figure{margin:1rem 0;overflow-x:auto}',
  'table{border-collapse:collapse;margin-top:1rem}',
  // Values never wrap (a period split as 2026-/10 misreads); headers wrap at their _ and . instead.
  'th,td{border-bottom:1px solid #ddd;padding:.3rem .6rem;text-align:left;vertical-align:bottom}',
  'td{white-space:nowrap}',
  'td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}',
  'tfoot td{font-weight:bold;border-top:2px solid #222}',
  'p.footnote{color:#555;font-size:.9rem;max-width:70rem}',
  'ul.notes{background:#f6f6f6;border-left:4px solid #4e79a7;padding:.5rem 1rem .5rem 2rem;max-width:70rem}',
  'p.alert{background:#fde2e1;border-left:4px solid #c00;padding:.5rem 1rem;font-weight:bold;max-width:70rem}',
  'figure svg{max-width:100%;height:auto}',
  'ul.legend{list-style:none;padding:0;margin:.5rem 0;display:flex;flex-wrap:wrap;gap:.4rem 1.2rem}',
  'ul.legend span{display:inline-block;width:.8rem;height:.8rem;margin-right:.4rem;vertical-align:middle}',
].join('');

export function formatHtmlPage(page: HtmlPage): string {
  const title = escapeHtml(page.title);
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8"/>',
    `<title>${title}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>${title}</h1>`,
    page.subtitle === undefined ? '' : `<p class="subtitle">${escapeHtml(page.subtitle)}</p>`,
    page.alert === undefined ? '' : `<p class="alert">${escapeHtml(page.alert)}</p>`,
    page.headline === undefined ? '' : `<p class="total" id="total">${escapeHtml(page.headline)}</p>`,
    page.notes === undefined || page.notes.length === 0
      ? ''
      : `<ul class="notes">\n${page.notes.map((note) => `<li>${escapeHtml(note)}</li>`).join('\n')}\n</ul>`,
    page.chart === undefined ? '' : `<figure>\n${page.chart}\n</figure>`,
    htmlTable(page.table),
    ...(page.footnotes ?? []).map((note) => `<p class="footnote">${escapeHtml(note)}</p>`),
    '</body>',
    '</html>',
    '',
  ]
    .filter((line, i, all) => line !== '' || i === all.length - 1)
    .join('\n');
}

function htmlTable(table: ResultTable): string {
  const numeric = table.columns.map((column) => column.type === 'integer' || column.type === 'number');
  const cell = (tag: string, i: number, html: string) =>
    `<${tag}${numeric[i] ? ' class="n"' : ''}>${html}</${tag}>`;
  const row = (cells: readonly Cell[]) =>
    `<tr>${table.columns.map((column, i) => cell('td', i, escapeHtml(showCell(cells[i] ?? null, column)))).join('')}</tr>`;
  const head = table.columns.map((column, i) => cell('th', i, wrappable(column.name))).join('');
  const empty =
    table.rows.length === 0 ? [`<tr><td colspan="${table.columns.length}">No rows</td></tr>`] : [];
  return [
    '<table>',
    `<thead><tr>${head}</tr></thead>`,
    '<tbody>',
    ...table.rows.map(row),
    ...empty,
    '</tbody>',
    ...(table.footer ? [`<tfoot>${row(table.footer)}</tfoot>`] : []),
    '</table>',
  ].join('\n');
}

/** A column name that may wrap after its `_` and `.` (billed_<wbr/>hours), escaped. */
function wrappable(name: string): string {
  return name
    .split(/(?<=[_.])/)
    .map(escapeHtml)
    .join('<wbr/>');
}

function showCell(cell: Cell, column: Column): string {
  if (cell === null) return '';
  if ((typeof cell === 'number' || cell instanceof ExactNumber) && column.decimals !== undefined)
    return fixedDecimals(cell, column.decimals);
  return String(cell);
}

/** Escapes text for HTML and SVG content and attribute values (double-quoted). */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

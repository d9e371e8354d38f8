/**
 * The output formats of `report` and `query`, and the one function that renders a table in any
 * of them. HTML needs a page title (and takes an optional chart); the others only the table.
 */
import { writeJson } from '../../util/json-writer.js';
import { formatCsv } from './csv.js';
import { formatHtmlPage } from './html.js';
import { type ResultTable, tableToObjects } from './result-table.js';
import { formatTextTable } from './text-table.js';

export const OUTPUT_FORMATS = ['table', 'csv', 'json', 'html'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface PageInfo {
  readonly title: string;
  readonly subtitle?: string;
  readonly chart?: string;
}

/**
 * JSON: an array of row objects keyed by column name, pretty-printed, one trailing newline; numbers
 * exact (src/util/json-writer.ts).
 */
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

/**
 * The billing report in each output format, all with the same figures, total and trust markers
 * (among the warnings, the note that the rows do not add up to the total, when they do not):
 *   json   one object: as_of, rows, total, then the markers (billingJson)
 *   table  the rows, a total row, then the markers as lines under the table
 *   csv    header, rows, a `total` row; the markers as `# ` comment lines only when asked (many
 *          CSV readers take a comment line for data), text cells guarded against formulas
 *   html   the markers in a box, a legend and a bar chart over every period, the table with totals
 *          and the rounding note under it
 */
import { writeJson } from '../util/json-writer.js';
import { counted } from '../util/plural.js';
import {
  type BillingQuery,
  type BillingReport,
  type BillingRow,
  FIGURE_DECIMALS,
  type FigureName,
  type Figures,
} from './billing-report.js';
import { barChartSvg, chartLegend, limitSeries } from './format/bar-chart-svg.js';
import { trimmedDecimal } from './format/decimal-text.js';
import { formatCsv, formatHtmlPage, type OutputFormat } from './format/output-format.js';
import { type Cell, type Column, type ResultTable, tableFromObjects } from './format/result-table.js';
import { formatTextTable } from './format/text-table.js';
import { describeFilter } from './reports.js';

export interface BillingOutputOptions {
  readonly title: string;
  /** A line under the HTML title: the filters that made the report. */
  readonly subtitle: string;
  /** CSV: BOM, and whether the markers are written as comment lines. */
  readonly csv?: { readonly bom?: boolean; readonly comments?: boolean };
  /** Set when the mirror is stale: a banner on the page, a first line in CSV and the table. */
  readonly alert?: string;
}

function billingColumn(name: string): Column {
  if (name === 'jobs') return { name, type: 'integer' };
  if (!(name in FIGURE_DECIMALS)) return { name, type: 'text' };
  return { name, type: 'number', decimals: FIGURE_DECIMALS[name as FigureName] };
}

/** Rows as JSON and CSV name their fields: group columns named by their --group-by key. */
function rowObject(report: BillingReport, row: BillingRow): Record<string, Cell> {
  const groups = Object.fromEntries(report.query.groupBy.map((key, i) => [key, row.groups[i] ?? null]));
  return { period: row.period, ...groups, ...figureObject(report, row) };
}

/** The figures in column order, cost and currency after billed_hours when priced. */
function figureObject(report: BillingReport, figures: Figures): Record<string, Cell> {
  const { jobs, billed_seconds, billed_hours, cost, audio_hours, transcription_hours } = figures;
  const currency = report.query.prices?.currency;
  const money: Record<string, Cell> = currency === undefined ? {} : { cost: cost ?? null, currency };
  return { jobs, billed_seconds, billed_hours, ...money, audio_hours, transcription_hours };
}

/** The rows, and the total as the footer (its group cells blank); the columns in the objects' order. */
function billingResultTable(report: BillingReport): ResultTable {
  const blanks = Object.fromEntries(report.query.groupBy.map((key) => [key, '']));
  const total = { period: 'total', ...blanks, ...figureObject(report, report.total) };
  const objects = [...report.rows.map((row) => rowObject(report, row)), total];
  const { columns, rows } = tableFromObjects(Object.keys(total).map(billingColumn), objects);
  return { columns, rows: rows.slice(0, -1), footer: rows.at(-1) ?? [] };
}

function billingJson(report: BillingReport): string {
  const object = {
    as_of: report.as_of,
    rows: report.rows.map((row) => rowObject(report, row)),
    total: figureObject(report, report.total),
    not_counted: report.not_counted,
    empty_rows: report.empty_rows,
    warnings: report.warnings,
  };
  return `${writeJson(object, { indent: 2 })}\n`;
}

/** The trust markers in words, one line each: as of, not counted, empty rows left out (if any), warnings. */
function markerLines(report: BillingReport, alert?: string): string[] {
  const { quarantined, pending } = report.not_counted;
  const leftOut = report.empty_rows.left_out;
  return [
    ...(alert ? [alert] : []),
    `as of ${report.as_of ?? 'never (no successful sync recorded)'}`,
    `not counted: ${quarantined} quarantined (transcript-sync quarantine list), ${pending} pending (queued or processing)`,
    ...(leftOut > 0
      ? [
          `left out: ${counted(leftOut, 'empty row')}, periods and groups without jobs (--include-empty lists them)`,
        ]
      : []),
    ...report.warnings.map((warning) => `warning: ${warning}`),
  ];
}

/** One line saying what the report counts, under the HTML title. */
export function describeBilling(query: BillingQuery): string {
  const filter = describeFilter('billing', query, query.date);
  const prices = query.prices ? `; cost in ${query.prices.currency}` : '';
  return `${filter}; period by ${query.date}_at; grouped by ${query.groupBy.join(', ')}${prices}`;
}

/** The page title of `report billing`: what the chart shows (cost when priced), per what. */
export function billingTitle(query: BillingQuery): string {
  const what = query.prices ? `Cost (${query.prices.currency}) and billed hours` : 'Billed hours';
  return `${what} per ${query.by} and ${query.groupBy.join(', ')}`;
}

/** The totals in one line, for the top of the page: money first when priced. */
function totalLine(report: BillingReport): string {
  const { total } = report;
  const hours = `${total.billed_hours.text} billed hours, ${total.jobs} jobs`;
  const currency = report.query.prices?.currency;
  return currency === undefined || total.cost === undefined
    ? `Total: ${hours}`
    : `Total: ${total.cost.text} ${currency} for ${hours}`;
}

/** Bars of cost per period and group when priced, else of billed hours; a legend beside them. */
function billingChartHtml(report: BillingReport, label: string): string {
  const currency = report.query.prices?.currency;
  const points = report.rows.map((row) => {
    const value = currency === undefined ? row.billed_hours : (row.cost ?? row.billed_hours);
    return {
      period: row.period,
      series: row.groups.join(' / '),
      value: Number(value.text),
      label: trimmedDecimal(value),
    };
  });
  const unit = currency ?? 'billed hours';
  const shown = limitSeries(points);
  return `${chartLegend(shown)}\n${barChartSvg(shown, { unit, label, periods: report.periods })}`;
}

export function renderBilling(
  report: BillingReport,
  format: OutputFormat,
  options: BillingOutputOptions,
): string {
  switch (format) {
    case 'json':
      return billingJson(report);
    case 'table':
      return formatTextTable(billingResultTable(report), markerLines(report, options.alert));
    case 'csv':
      return formatCsv(billingResultTable(report), {
        guardFormulas: true,
        bom: options.csv?.bom ?? false,
        comments: options.csv?.comments ? markerLines(report, options.alert) : [],
      });
    case 'html':
      return formatHtmlPage({
        title: options.title,
        subtitle: options.subtitle,
        headline: totalLine(report),
        ...(options.alert ? { alert: options.alert } : {}),
        // The rounding note goes under the table it is about, not in the box above.
        notes: markerLines({ ...report, warnings: report.warnings.filter((w) => w !== report.rounding) }),
        chart: billingChartHtml(report, options.title),
        table: billingResultTable(report),
        ...(report.rounding ? { footnotes: [`Note: ${report.rounding}.`] } : {}),
      });
  }
}

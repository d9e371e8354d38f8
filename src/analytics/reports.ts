/**
 * The named reports (billing, status, latency, errors): which sql/queries file each runs, the
 * columns it yields, and how a filter becomes bound parameters. Report SQL reads the views of
 * sql/100_analytics_views.sql and the counted_jobs() filter and figure macros of
 * sql/102_report_filter_once.sql; no value is ever spliced into SQL text.
 */
import type { JobKind } from '../kinds.js';
import type { RowSource } from '../store/index.js';
import { errorsReport, latencyReport, type ReportRange, statusReport } from '../store/index.js';
import { type Column, type ResultTable, tableFromObjects } from './format/result-table.js';
import type { InstantRange, PeriodUnit } from './periods.js';

export const REPORT_NAMES = ['billing', 'status', 'latency', 'errors'] as const;
export type ReportName = (typeof REPORT_NAMES)[number];
/** The reports of one fixed table; billing's columns depend on --group-by and --prices (billing-report.ts). */
export type TableReportName = Exclude<ReportName, 'billing'>;
/** The reports that group by period, and so take --by. */
export const PERIODIC_REPORTS: readonly ReportName[] = ['billing', 'latency'];

export interface ReportFilter {
  /** Period of billing and latency rows; ignored by status and errors. */
  readonly by: PeriodUnit;
  /** created_at range, UTC. */
  readonly range: InstantRange;
  /** One kind, or both when undefined. */
  readonly kind?: JobKind | undefined;
  /** Count jobs that a --full sync no longer found upstream (deleted_at set). */
  readonly includeDeleted: boolean;
}

interface ReportDefinition {
  /** The report's rows, given the filter's parameters ($by taken by periodic ones only). */
  readonly read: (db: RowSource, params: ReportRange & { by: string }) => Promise<Record<string, unknown>[]>;
  readonly columns: readonly Column[];
  readonly title: string;
}

const text = (name: string): Column => ({ name, type: 'text' });
const integer = (name: string): Column => ({ name, type: 'integer' });
const seconds = (name: string): Column => ({ name, type: 'number', decimals: 3 });
const PERIOD_KIND_JOBS: readonly Column[] = [text('period'), text('kind'), integer('jobs')];

export const REPORTS: Readonly<Record<TableReportName, ReportDefinition>> = {
  status: {
    read: statusReport,
    title: 'Jobs by status',
    columns: [text('kind'), text('status'), integer('jobs')],
  },
  latency: {
    read: latencyReport,
    title: 'Latency from created_at to completed_at (done jobs, seconds)',
    columns: [...PERIOD_KIND_JOBS, ...['p50', 'p90', 'p99', 'max'].map((p) => seconds(`${p}_seconds`))],
  },
  errors: {
    read: errorsReport,
    title: 'Failed jobs by error_code',
    columns: [
      integer('error_code'),
      text('kind'),
      integer('jobs'),
      text('first_created_at'),
      text('last_created_at'),
    ],
  },
};

export async function runReport(
  db: RowSource,
  name: TableReportName,
  filter: ReportFilter,
): Promise<ResultTable> {
  const { read, columns } = REPORTS[name];
  return tableFromObjects(columns, await read(db, reportParams(filter)));
}

/** The parameters of the report statements; each binds the ones it takes. */
export function reportParams(filter: ReportFilter): ReportRange & { by: string } {
  return {
    by: filter.by,
    from: filter.range.from ?? null,
    before: filter.range.before ?? null,
    kind: filter.kind ?? null,
    include_deleted: filter.includeDeleted,
  };
}

/**
 * One line saying what a report counts, for HTML pages and docs; dates as a person reads them
 * (`created 1 Oct 2026 to 31 Oct 2026`, both days included). `basis` names the instant that
 * places a job: created, or completed for billing --date completed.
 */
export function describeFilter(name: ReportName, filter: ReportFilter, basis = 'created'): string {
  const parts: string[] = [];
  if (PERIODIC_REPORTS.includes(name)) parts.push(`per ${filter.by} (UTC)`);
  const { from, before } = filter.range;
  if (from && before) parts.push(`${basis} ${readableDate(from)} to ${readableDate(lastDay(before))}`);
  else if (from) parts.push(`${basis} from ${readableDate(from)}`);
  else if (before) parts.push(`${basis} up to ${readableDate(lastDay(before))}`);
  parts.push(filter.kind ? `kind ${filter.kind}` : 'both kinds');
  if (name === 'billing') parts.push('done jobs with a billing_time');
  parts.push(filter.includeDeleted ? 'deleted jobs included' : 'deleted jobs left out');
  return parts.join('; ');
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** 1 Oct 2026 (UTC), with the time when the instant is not a midnight: 1 Oct 2026 06:30 UTC. */
function readableDate(instant: Date): string {
  const date = `${instant.getUTCDate()} ${MONTHS[instant.getUTCMonth()]} ${instant.getUTCFullYear()}`;
  const time = instant.toISOString().slice(11, 16);
  return instant.getTime() % 86_400_000 === 0 ? date : `${date} ${time} UTC`;
}

/** The last day a half-open range's end includes: the day before a midnight end. */
function lastDay(before: Date): Date {
  return before.getTime() % 86_400_000 === 0 ? new Date(before.getTime() - 86_400_000) : before;
}

/**
 * The named reports (billing, status, latency, errors): which sql/queries file each runs, the
 * columns it yields, and how a filter becomes bound parameters. Report SQL reads the views of
 * sql/100_analytics_views.sql and the counted_jobs() filter and figure macros of
 * sql/102_report_filter_once.sql; no value is ever spliced into SQL text.
 */
import type { QueryName } from '../store/queries.js';
import type { SyncKind } from '../sync/types.js';
import type { InstantRange, PeriodUnit } from './periods.js';
import type { RowSource } from './reader.js';
import { type Column, type ResultTable, tableFromObjects } from './result-table.js';

export const REPORT_NAMES = ['billing', 'status', 'latency', 'errors'] as const;
export type ReportName = (typeof REPORT_NAMES)[number];

export interface ReportFilter {
  /** Period of billing and latency rows; ignored by status and errors. */
  readonly by: PeriodUnit;
  /** created_at range, UTC. */
  readonly range: InstantRange;
  /** One kind, or both when undefined. */
  readonly kind?: SyncKind | undefined;
  /** Count jobs that a --full sync no longer found upstream (deleted_at set). */
  readonly includeDeleted: boolean;
}

interface ReportDefinition {
  /** sql/queries/<query>.sql */
  readonly query: QueryName;
  readonly columns: readonly Column[];
  /** Whether the query groups by period (and so takes $by). */
  readonly periodic: boolean;
  readonly title: string;
}

const text = (name: string): Column => ({ name, type: 'text' });
const integer = (name: string): Column => ({ name, type: 'integer' });
const seconds = (name: string): Column => ({ name, type: 'number', decimals: 3 });
/** The leading columns of the reports grouped by period. */
const PERIOD_KIND_JOBS: readonly Column[] = [text('period'), text('kind'), integer('jobs')];

export const REPORTS: Readonly<Record<ReportName, ReportDefinition>> = {
  // Rendered by billing-report.ts and billing-output.ts (its columns depend on --group-by and
  // --prices); listed here for its name, title and --by.
  billing: {
    query: 'report-billing',
    periodic: true,
    title: 'Billed hours',
    columns: [],
  },
  status: {
    query: 'report-status',
    periodic: false,
    title: 'Jobs by status',
    columns: [text('kind'), text('status'), integer('jobs')],
  },
  latency: {
    query: 'report-latency',
    periodic: true,
    title: 'Latency from created_at to completed_at (done jobs, seconds)',
    columns: [
      ...PERIOD_KIND_JOBS,
      seconds('p50_seconds'),
      seconds('p90_seconds'),
      seconds('p99_seconds'),
      seconds('max_seconds'),
    ],
  },
  errors: {
    query: 'report-errors',
    periodic: false,
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

export async function runReport(db: RowSource, name: ReportName, filter: ReportFilter): Promise<ResultTable> {
  const definition = REPORTS[name];
  const rows = await db.all(db.query(definition.query), reportParams(filter, definition.periodic));
  return tableFromObjects(definition.columns, rows);
}

/** Named parameters of the report queries; DuckDB refuses a name the statement lacks, hence `periodic`. */
function reportParams(filter: ReportFilter, periodic: boolean): Record<string, unknown> {
  return {
    ...(periodic ? { by: filter.by } : {}),
    from: filter.range.from ?? null,
    before: filter.range.before ?? null,
    kind: filter.kind ?? null,
    include_deleted: filter.includeDeleted,
  };
}

/** One line saying what a report counts, for HTML pages and docs. */
export function describeFilter(name: ReportName, filter: ReportFilter): string {
  const parts: string[] = [];
  if (REPORTS[name].periodic) parts.push(`per ${filter.by} (UTC)`);
  const from = filter.range.from?.toISOString();
  const before = filter.range.before?.toISOString();
  if (from || before)
    parts.push(`created from ${from ?? 'the start'} up to (not including) ${before ?? 'now'}`);
  parts.push(filter.kind ? `kind ${filter.kind}` : 'both kinds');
  if (name === 'billing') parts.push('done jobs with a billing_time');
  parts.push(filter.includeDeleted ? 'deleted jobs included' : 'deleted jobs left out');
  return parts.join('; ');
}

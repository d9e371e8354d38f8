/**
 * The report statements (sql/queries/report-*.sql) over the views and macros of sql/100-102.
 * Instants may be Date or ISO text; null leaves that end of the range open.
 */
import type { RowSource } from '../database.js';
import { countOf, countsOf, only, queryText } from './queries.js';

type Instant = Date | string | null;

/** The filter every report takes: the range (of created_at), one kind or (null) both, deleted jobs in or out. */
export type ReportRange = {
  readonly from: Instant;
  readonly before: Instant;
  readonly kind: string | null;
  readonly include_deleted: boolean;
};

/** day | week | month | quarter | year */
export type ByPeriod = { readonly by: string };

/** created | completed: which instant places a job in the range and its period. */
export type DateBasis = { readonly date: string };

/** billing's parameters (see report-billing.sql): groups g1-g3, prices as JSON text. */
export type BillingParams = ReportRange &
  ByPeriod &
  DateBasis & {
    readonly g1: string | null;
    readonly g2: string | null;
    readonly g3: string | null;
    readonly prices: string | null;
  };

/** A billing row: figures as DuckDB's text of their DECIMAL; the last row is the total (is_total). */
export type BillingCells = {
  readonly is_total: boolean;
  readonly period: string | null;
  readonly g1: string | null;
  readonly g2: string | null;
  readonly g3: string | null;
  readonly jobs: number | null;
  readonly billed_seconds: string | null;
  readonly billed_hours: string | null;
  readonly cost: string | null;
  readonly audio_hours: string | null;
  readonly transcription_hours: string | null;
  /** 'kind' or 'kind model' of jobs without a price (with prices only). */
  readonly unpriced: string[] | null;
};

/** A row of status, latency or errors: its columns are the report's (src/analytics/reports.ts). */
type ReportRow = Record<string, unknown>;

const range = (p: ReportRange) => only(p, 'from', 'before', 'kind', 'include_deleted');

/** Billed jobs per period and group, then the total row. */
export function billingRows(db: RowSource, params: BillingParams): Promise<BillingCells[]> {
  const own = only(params, 'by', 'date', 'g1', 'g2', 'g3', 'prices');
  return db.all<BillingCells>(queryText('report-billing'), { ...range(params), ...own });
}

export const statusReport = (db: RowSource, params: ReportRange) =>
  db.all<ReportRow>(queryText('report-status'), range(params));

/** Seconds from created_at to completed_at of done jobs, per period and kind. */
export const latencyReport = (db: RowSource, params: ReportRange & ByPeriod) =>
  db.all<ReportRow>(queryText('report-latency'), { ...range(params), by: params.by });

/** Failed jobs per error_code and kind. */
export const errorsReport = (db: RowSource, params: ReportRange) =>
  db.all<ReportRow>(queryText('report-errors'), range(params));

/** What a billing report's range holds but cannot count yet: pending jobs, and (by completion) undated ones. */
export const uncountedJobs = (db: RowSource, params: ReportRange & DateBasis) =>
  countsOf(
    db.all(queryText('report-pending'), { ...range(params), date: params.date }),
    'pending',
    'undated',
  );

/** Unresolved quarantined records a report of this range could not count. */
export const quarantinedInRange = (db: RowSource, params: Omit<ReportRange, 'include_deleted'> & DateBasis) =>
  countOf(db.all(queryText('report-quarantined'), only(params, 'date', 'from', 'before', 'kind')), 'n');

/** Per kind, window_before of its newest ok run, and the lowest window_after of its ok runs (null: none). */
export const lastOkSyncs = (db: RowSource) =>
  db.all<{ kind: string; as_of: Date; synced_from: Date | null }>(queryText('report-as-of'));

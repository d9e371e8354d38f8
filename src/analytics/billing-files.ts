/**
 * Billing report files for the scheduled report job: the CSV and HTML of one period, named by
 * period and kind (billing-day-2026-11-21-all.csv, billing-month-2026-10-live.html), written
 * atomically, and rewritten only when their content (that is, the figures) changed. The content
 * holds no generation time for that reason: a file's mtime says when its figures last changed.
 */
import { join } from 'node:path';
import { SYNC_KINDS, type SyncKind } from '../sync/types.js';
import { writeFileIfChanged } from './atomic-file.js';
import { billingChart } from './billing-chart.js';
import { formatCsv } from './format-csv.js';
import { formatHtmlPage } from './format-html.js';
import { lastCompletePeriod, type PeriodUnit, periodRange } from './periods.js';
import type { RowSource } from './reader.js';
import { type BillingRow, billingRows, billingTable, describeFilter, type ReportFilter } from './reports.js';

export interface BillingReportOptions {
  readonly db: RowSource;
  /** Folder of the report files; created when missing. */
  readonly dir: string;
  readonly by: PeriodUnit;
  /** `YYYY-MM-DD` for days, `YYYY-MM` for months (UTC); see lastCompletePeriod. */
  readonly period: string;
  /** One kind, or both (file suffix `all`) when undefined. */
  readonly kind?: SyncKind | undefined;
  /** Default false: jobs a --full sync no longer found upstream are not billed. */
  readonly includeDeleted?: boolean;
}

export interface ReportFile {
  readonly path: string;
  readonly format: 'csv' | 'html';
  /** False when the file already held these figures and was left untouched. */
  readonly written: boolean;
}

export interface BillingReportResult {
  readonly by: PeriodUnit;
  readonly period: string;
  readonly kind: SyncKind | 'all';
  /** One row per kind, zeros for a kind without billed jobs in the period. */
  readonly rows: readonly BillingRow[];
  readonly files: readonly ReportFile[];
}

export async function writeBillingReport(options: BillingReportOptions): Promise<BillingReportResult> {
  const { db, dir, by, period, kind } = options;
  const filter: ReportFilter = {
    by,
    range: periodRange(by, period),
    kind,
    includeDeleted: options.includeDeleted ?? false,
  };
  const found = await billingRows(db, filter);
  const rows = (kind ? [kind] : SYNC_KINDS).map(
    (k): BillingRow =>
      found.find((row) => row.kind === k) ?? {
        period,
        kind: k,
        jobs: 0,
        billed_hours: 0,
        audio_hours: 0,
        transcription_hours: 0,
      },
  );
  const table = billingTable(rows);
  const suffix = kind ?? 'all';
  const base = join(dir, `billing-${by}-${period}-${suffix}`);
  const title = `Billing by ${by}: ${period} (UTC), ${kind ?? 'all kinds'}`;
  const html = formatHtmlPage({
    title,
    subtitle: describeFilter('billing', filter),
    chart: billingChart(rows, title),
    table,
  });
  const files: ReportFile[] = [];
  for (const [format, content] of [
    ['csv', formatCsv(table)],
    ['html', html],
  ] as const) {
    const path = `${base}.${format}`;
    files.push({ path, format, written: await writeFileIfChanged(path, content) });
  }
  return { by, period, kind: suffix, rows, files };
}

/**
 * What the scheduled job runs: the reports of the last complete day and month before `now`.
 * Yesterday's file is rewritten on later runs only if late completions changed its figures.
 */
export async function writeLastCompleteBillingReports(options: {
  readonly db: RowSource;
  readonly dir: string;
  readonly now?: Date;
  readonly kind?: SyncKind;
}): Promise<BillingReportResult[]> {
  const now = options.now ?? new Date();
  const results: BillingReportResult[] = [];
  for (const by of ['day', 'month'] as const) {
    results.push(
      await writeBillingReport({
        db: options.db,
        dir: options.dir,
        by,
        period: lastCompletePeriod(by, now),
        kind: options.kind,
      }),
    );
  }
  return results;
}

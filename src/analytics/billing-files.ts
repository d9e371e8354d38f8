/**
 * Billing report files for the scheduled report job: the CSV and HTML of one period, named by the
 * database, period and kind (billing-transcripts-day-2026-11-21-all.csv), written atomically and
 * only when their figures or markers changed (not the `as of` line alone), for every complete day
 * and month of `--report-window`. Nothing is written from a mirror without a successful sync; one
 * whose last successful sync is older than `staleAfterMs` gets files marked STALE.
 */
import { basename, extname, join } from 'node:path';
import type { JobKind } from '../kinds.js';
import type { RowSource } from '../store/index.js';
import { describeBilling, renderBilling } from './billing-output.js';
import { type BillingQuery, billingReport } from './billing-report.js';
import type { GroupKey } from './group-by.js';
import { type PeriodUnit, periodRange, periodsBetween, startOf } from './periods.js';
import type { Prices } from './prices.js';
import { writeFileIfChanged } from './publish/atomic-file.js';

/** What the worker's --report-* flags configure (src/config/sync-defaults.ts resolves them). */
export interface BillingFileSettings {
  readonly groupBy: readonly GroupKey[];
  /** Adds a cost column; undefined: none. */
  readonly prices: Prices | undefined;
  /** ms back from now whose complete days and months are (re)written on each run. */
  readonly windowMs: number;
  /** ms since the last successful sync after which files are marked STALE. */
  readonly staleAfterMs: number;
  /** CSV files start with a UTF-8 byte order mark. */
  readonly bom: boolean;
  /** The one kind the worker syncs (files `-<kind>`), or both (`-all`) when undefined. */
  readonly kind: JobKind | undefined;
}

interface BillingFileOptions {
  readonly db: RowSource;
  /** Folder of the report files; created when missing. */
  readonly dir: string;
  readonly by: PeriodUnit;
  /** The period's label: `YYYY-MM-DD` for days, `YYYY-MM` for months (UTC). */
  readonly period: string;
  /** One kind, or both (file suffix `all`) when undefined. */
  readonly kind?: JobKind | undefined;
  readonly settings: BillingFileSettings;
  /** Default: the wall clock; decides staleness. */
  readonly now?: Date;
}

/**
 * A line that changes on every sync without the figures changing; left out when comparing. In a
 * CSV with --report-bom it is the file's first line, after the byte order mark.
 */
const AS_OF_LINE = /^(\uFEFF?)(?:# |<li>)as of .*$/gm;
const sameFigures = (old: string, next: string) =>
  old.replace(AS_OF_LINE, '$1') === next.replace(AS_OF_LINE, '$1');

/**
 * `files` is empty when the mirror never synced successfully (nothing written); a file's `written`
 * is false when it already held these figures and was left untouched.
 */
export async function writeBillingReport(options: BillingFileOptions) {
  const { db, dir, by, period, kind, settings } = options;
  const now = options.now ?? new Date();
  const query: BillingQuery = {
    by,
    date: 'created',
    range: periodRange(by, period),
    kind,
    includeDeleted: false,
    groupBy: settings.groupBy,
    // One period per file: its every group is listed, zeros included, as a file finance compares.
    includeEmpty: true,
    prices: settings.prices,
  };
  const report = await billingReport(db, query, now);
  const result = { by, period, kind: kind ?? ('all' as const), report };
  if (report.as_of === null) return { ...result, stale: false, files: [] };
  const stale = now.getTime() - new Date(report.as_of).getTime() > settings.staleAfterMs;
  const alert = stale
    ? `STALE: the last successful sync (${report.as_of}) is older than ${hoursText(settings.staleAfterMs)}; these figures may miss jobs`
    : undefined;
  // The file's whole name, said to be one: a bare `w` at the end of a title reads as a cut word.
  const title = `Billing by ${by}: ${period} (UTC), ${kind ?? 'all kinds'}, database ${basename(db.path)}`;
  const base = join(dir, `billing-${databaseName(db.path)}-${by}-${period}-${result.kind}`);
  const files: { path: string; format: 'csv' | 'html'; written: boolean }[] = [];
  for (const format of ['csv', 'html'] as const) {
    const text = renderBilling(report, format, {
      title,
      subtitle: describeBilling(query),
      // A file read far from any command output must say how true it is: markers always on.
      csv: { bom: settings.bom, comments: true },
      ...(alert ? { alert } : {}),
    });
    const path = `${base}.${format}`;
    files.push({ path, format, written: await writeFileIfChanged(path, text, sameFigures) });
  }
  return { ...result, stale, files };
}

/**
 * What the scheduled job runs: every complete day and month (UTC) that meets the window before
 * `now` (at least yesterday and last month), oldest first; stops when the mirror has no successful sync.
 */
export async function writeRecentBillingReports(options: Omit<BillingFileOptions, 'by' | 'period'>) {
  const now = options.now ?? new Date();
  const kind = options.kind ?? options.settings.kind;
  const windowStart = new Date(now.getTime() - options.settings.windowMs);
  const results: Awaited<ReturnType<typeof writeBillingReport>>[] = [];
  for (const by of ['day', 'month'] as const) {
    const current = startOf(by, now);
    const last = startOf(by, new Date(current.getTime() - 1));
    const from = last < windowStart ? last : windowStart;
    for (const period of periodsBetween(by, from, current)) {
      const result = await writeBillingReport({ ...options, kind, by, period, now });
      results.push(result);
      if (result.report.as_of === null) return results;
    }
  }
  return results;
}

/** The DuckDB file's name without its extension, safe in a file name: transcripts.duckdb -> transcripts. */
function databaseName(path: string): string {
  const name = basename(path, extname(path)).replace(/[^\w.-]+/g, '_');
  return name === '' ? 'db' : name;
}

function hoursText(ms: number): string {
  const hours = ms / 3_600_000;
  return hours >= 1 ? `${Number(hours.toFixed(2))} h` : `${Math.round(ms / 60_000)} min`;
}

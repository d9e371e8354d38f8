/**
 * `transcript-sync report billing|status|latency|errors`: summaries of the DuckDB file as a terminal
 * table, CSV, JSON or a self-contained HTML page (billing's with a bar chart). Read-only: it runs
 * while no sync writes the file, and waits --lock-wait for one that does.
 */

import { billingChart } from '../analytics/billing-chart.js';
import { withReadOnlyDatabase } from '../analytics/open-reader.js';
import { type OutputFormat, parseFormat, render } from '../analytics/output-format.js';
import { PERIOD_UNITS, type PeriodUnit, rangeFromFlags } from '../analytics/periods.js';
import type { RowSource } from '../analytics/reader.js';
import {
  billingRows,
  billingTable,
  describeFilter,
  REPORT_NAMES,
  REPORTS,
  type ReportFilter,
  type ReportName,
  runReport,
} from '../analytics/reports.js';
import type { FlagValues } from '../config.js';
import { resolveSettings } from '../config.js';
import { ConfigError } from '../errors.js';
import { SYNC_KINDS, type SyncKind } from '../sync/types.js';
import { type Command, flag, stringFlag } from './command.js';

const DESCRIPTION = [
  'Reports:',
  '  billing  jobs, billed_hours (sum of billing_time / 3600), audio_hours and transcription_hours per',
  '           period and kind. Only jobs with status done and a billing_time count: queued, processing',
  '           and failed jobs are not billed.',
  '  status   jobs per kind and status.',
  '  latency  p50/p90/p99/max seconds from created_at to completed_at of done jobs, per period and kind.',
  '  errors   failed jobs (status error) per error_code and kind, with the first and last created_at.',
  '',
  "Periods are UTC days (YYYY-MM-DD) or months (YYYY-MM) of a job's created_at: a job created at",
  '23:59:59.999Z counts in its own day. --from and --to are inclusive and take a day or a month.',
  'Jobs that a --full sync no longer found upstream (deleted_at set) are left out unless',
  '--include-deleted. JSON is an array of row objects; CSV has a header row with the same names.',
].join('\n');

export const command: Command = {
  name: 'report',
  summary: 'billing, status, latency and errors reports (table, CSV, JSON, HTML)',
  usage:
    'report billing|status|latency|errors [--by day|month] [--from DATE] [--to DATE] [--kind pre-recorded|live] ' +
    '[--format table|csv|json|html] [--include-deleted] [--db PATH] [--lock-wait 5s]',
  description: DESCRIPTION,
  options: {
    by: { type: 'string', value: 'day|month', help: 'period of billing and latency rows (default day)' },
    from: {
      type: 'string',
      value: 'DATE',
      help: 'first day (YYYY-MM-DD) or month (YYYY-MM), inclusive, UTC',
    },
    to: { type: 'string', value: 'DATE', help: 'last day (YYYY-MM-DD) or month (YYYY-MM), inclusive, UTC' },
    kind: { type: 'string', value: 'KIND', help: 'pre-recorded or live (default both)' },
    format: { type: 'string', value: 'FORMAT', help: 'table, csv, json or html (default table)' },
    'include-deleted': {
      type: 'boolean',
      help: 'also count jobs no longer listed upstream (deleted_at set)',
    },
  },
  settings: ['db', 'lockWait'],
  positionals: true,
  async run({ flags, positionals, stdout }) {
    const name = reportName(positionals);
    const filter = reportFilter(name, flags);
    const format = parseFormat(stringFlag(flags, 'format'));
    const { db, lockWait } = resolveSettings(['db', 'lockWait'], [], flags);
    const text = await withReadOnlyDatabase(db, lockWait, (database) =>
      renderReport(database, name, filter, format),
    );
    stdout.write(text);
    return 0;
  },
};

async function renderReport(
  db: RowSource,
  name: ReportName,
  filter: ReportFilter,
  format: OutputFormat,
): Promise<string> {
  const subtitle = describeFilter(name, filter);
  const title = REPORTS[name].title;
  if (name !== 'billing') return render(await runReport(db, name, filter), format, { title, subtitle });
  const rows = await billingRows(db, filter);
  const chart = format === 'html' ? billingChart(rows, `${title} per ${filter.by} and kind`) : undefined;
  return render(billingTable(rows), format, {
    title: `${title} per ${filter.by}`,
    subtitle,
    ...(chart ? { chart } : {}),
  });
}

function reportName(positionals: readonly string[]): ReportName {
  const [first, extra] = positionals;
  const name = REPORT_NAMES.find((n) => n === first);
  if (first === undefined || !name) {
    const got = first === undefined ? 'none given' : `got "${first}"`;
    throw new ConfigError(
      'report',
      `name a report: ${REPORT_NAMES.join(', ')} (${got}); see \`transcript-sync report --help\``,
    );
  }
  if (extra !== undefined)
    throw new ConfigError('report', `unexpected argument "${extra}"; see \`transcript-sync report --help\``);
  return name;
}

function reportFilter(name: ReportName, flags: FlagValues): ReportFilter {
  const byText = stringFlag(flags, 'by');
  if (byText !== undefined && !REPORTS[name].periodic) {
    throw new ConfigError('--by', `applies to the billing and latency reports, not to ${name}`);
  }
  const by = PERIOD_UNITS.find((unit): unit is PeriodUnit => unit === (byText ?? 'day'));
  if (!by) throw new ConfigError('--by', `"${byText}" is not one of ${PERIOD_UNITS.join(', ')}`);
  const kindText = stringFlag(flags, 'kind');
  const kind = SYNC_KINDS.find((k): k is SyncKind => k === kindText);
  if (kindText !== undefined && !kind)
    throw new ConfigError('--kind', `"${kindText}" is not one of ${SYNC_KINDS.join(', ')}`);
  return {
    by,
    range: rangeFromFlags(stringFlag(flags, 'from'), stringFlag(flags, 'to')),
    kind,
    includeDeleted: flag(flags, 'include-deleted'),
  };
}

/** `transcript-sync report billing|status|latency|errors`: read-only summaries of the DuckDB file. */
import { billingTitle, describeBilling, renderBilling } from '../../analytics/billing-output.js';
import { type BillingQuery, billingReport } from '../../analytics/billing-report.js';
import { render } from '../../analytics/format/output-format.js';
import { rangeFromFlags } from '../../analytics/periods.js';
import { readerOptions, withReader } from '../../analytics/read/open-reader.js';
import {
  describeFilter,
  PERIODIC_REPORTS,
  REPORT_NAMES,
  REPORTS,
  type ReportFilter,
  type ReportName,
  runReport,
} from '../../analytics/reports.js';
import { refuseGiven, resolveAll, resolveFormat } from '../../config/resolve.js';
import type { FlagValues } from '../../config/settings.js';
import { ConfigError } from '../../errors.js';
import { onlyKind } from '../../kinds.js';
import { type Command, unexpectedArgument } from '../command.js';

const SETTINGS = [
  'by',
  'from',
  'to',
  'kindShown',
  'reportFormat',
  'json',
  'includeDeleted',
  'date',
  'groupBy',
  'includeEmpty',
  'prices',
  'bom',
  'csvComments',
  'db',
  'lockWait',
  'memory',
] as const;

export const command: Command = {
  name: 'report',
  usage:
    'report billing|status|latency|errors [--by day|week|month|quarter|year] [--from DATE] [--to DATE] ' +
    '[--kind pre-recorded|live|all] [--format table|csv|json|html | --json] [--include-deleted] ' +
    '[--date created|completed] [--group-by kind|model|metadata.KEY[,...]] [--include-empty] [--prices FILE] [--bom] [--csv-comments] ' +
    '[--db PATH] [--lock-wait 5s] [--memory 512MB]',
  description: [
    'Reports:',
    '  billing  jobs, billed_seconds (sum of billing_time), billed_hours, audio_hours and',
    '           transcription_hours per period and group (default: kind), exact decimals rounded once',
    '           after summing; with --prices a cost column, rounded to cents after summing. Only jobs',
    '           with status done and a billing_time count. Periods and groups without jobs are left',
    '           out (the output says how many; --include-empty lists them as zeros). A total row,',
    '           as_of (last successful sync) and what was not counted (quarantined records, jobs still',
    '           queued or processing), and a warning when the rows, each rounded once, do not add up',
    '           to the total.',
    '  status   jobs per kind and status.',
    '  latency  p50/p90/p99/max seconds from created_at to completed_at of done jobs, per period and kind.',
    '  errors   failed jobs (status error) per error_code and kind, with the first and last created_at.',
    '',
    'Periods (--by, default month) are UTC days (2026-11-21), ISO weeks (2026-W47), months (2026-11),',
    "quarters (2026-Q4) or years (2026) of a job's created_at (billing: --date completed for its",
    'completed_at): a job created at 23:59:59.999Z counts in its own day. --from and --to are',
    'inclusive and take any of these shapes. Jobs that a --full sync no longer found upstream',
    '(deleted_at set) are left out unless --include-deleted. billing --format json prints one object',
    '{as_of, rows, total, not_counted, empty_rows, warnings}; the other reports an array of rows. CSV',
    'has a header row with the names.',
  ].join('\n'),
  settings: SETTINGS,
  positionals: true,
  async run({ flags, env, positionals, stdout }) {
    const name = reportName(positionals);
    refuseBillingOnly(name, flags);
    const format = resolveFormat('reportFormat', flags, env);
    if (format !== 'csv')
      refuseGiven(flags, ['bom', 'csvComments'], 'CSV (--format csv)', `--format ${format}`);
    const settings = resolveAll(SETTINGS, flags, env);
    const filter: ReportFilter = {
      by: settings.by,
      range: rangeFromFlags(settings.from, settings.to),
      kind: onlyKind(settings.kindShown),
      includeDeleted: settings.includeDeleted,
    };
    const text = await withReader(settings.db, readerOptions(settings), async (db) => {
      if (name !== 'billing') {
        const subtitle = describeFilter(name, filter);
        return render(await runReport(db, name, filter), format, { title: REPORTS[name].title, subtitle });
      }
      const { date, groupBy, includeEmpty, prices } = settings;
      const query: BillingQuery = { ...filter, date, groupBy, includeEmpty, prices };
      const csv = { bom: settings.bom, comments: settings.csvComments };
      const [title, subtitle] = [billingTitle(query), describeBilling(query)];
      return renderBilling(await billingReport(db, query), format, { title, subtitle, csv });
    });
    stdout.write(text);
    return 0;
  },
};

function reportName(positionals: readonly string[]): ReportName {
  const [first, extra] = positionals;
  const name = REPORT_NAMES.find((n) => n === first);
  if (!name) {
    const got = first === undefined ? 'none given' : `got "${first}"`;
    throw new ConfigError(
      'report',
      `name a report: ${REPORT_NAMES.join(', ')} (${got}); see \`transcript-sync report --help\``,
    );
  }
  if (extra !== undefined) throw unexpectedArgument('report', extra);
  return name;
}

const BILLING_ONLY = ['date', 'groupBy', 'includeEmpty', 'prices', 'bom', 'csvComments'] as const;

/** The billing-only flags are refused on the other reports, and --by on the ones without periods. */
function refuseBillingOnly(name: ReportName, flags: FlagValues): void {
  if (flags['by'] !== undefined && !PERIODIC_REPORTS.includes(name)) {
    throw new ConfigError('--by', `applies to the billing and latency reports, not to ${name}`);
  }
  if (name !== 'billing') refuseGiven(flags, BILLING_ONLY, 'the billing report', name);
}

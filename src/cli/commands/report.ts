/**
 * `transcript-sync report billing|status|latency|errors`: summaries of the DuckDB file as a terminal
 * table, CSV, JSON or a self-contained HTML page (billing's with a bar chart). Read-only: it runs
 * while no sync writes the file, and waits --lock-wait for one that does.
 */

import { billingTitle, describeBilling, renderBilling } from '../../analytics/billing-output.js';
import {
  type BillingQuery,
  billingReport,
  DATE_BASES,
  type DateBasis,
} from '../../analytics/billing-report.js';
import { type OutputFormat, parseFormat, render } from '../../analytics/format/output-format.js';
import { parseGroupBy } from '../../analytics/group-by.js';
import { PERIOD_UNITS, type PeriodUnit, rangeFromFlags } from '../../analytics/periods.js';
import { loadPrices } from '../../analytics/prices.js';
import { withReadOnlyDatabase } from '../../analytics/read/open-reader.js';
import type { RowSource } from '../../analytics/read/reader.js';
import {
  describeFilter,
  REPORT_NAMES,
  REPORTS,
  type ReportFilter,
  type ReportName,
  runReport,
} from '../../analytics/reports.js';
import type { FlagValues } from '../../config/settings.js';
import { resolveSettings } from '../../config/settings.js';
import { ConfigError } from '../../errors.js';
import { JOB_KINDS, type JobKind } from '../../kinds.js';
import { type Command, flag, stringFlag } from '../command.js';

const DESCRIPTION = [
  'Reports:',
  '  billing  jobs, billed_seconds (sum of billing_time), billed_hours, audio_hours and',
  '           transcription_hours per period and group (default: kind), exact decimals rounded once',
  '           after summing; with --prices a cost column, rounded to cents after summing. Only jobs',
  '           with status done and a billing_time count; every period of the range is listed, zeros',
  '           included, with a total row, as_of (last successful sync) and what was not counted',
  '           (quarantined records, jobs still queued or processing), and a warning when the rows,',
  '           each rounded once, do not add up to the total.',
  '  status   jobs per kind and status.',
  '  latency  p50/p90/p99/max seconds from created_at to completed_at of done jobs, per period and kind.',
  '  errors   failed jobs (status error) per error_code and kind, with the first and last created_at.',
  '',
  'Periods are UTC days (2026-11-21), ISO weeks (2026-W47), months (2026-11), quarters (2026-Q4) or',
  "years (2026) of a job's created_at (billing: --date completed for its completed_at): a job",
  'created at 23:59:59.999Z counts in its own day. --from and --to are inclusive and take any of',
  'these shapes. Jobs that a --full sync no longer found upstream (deleted_at set) are left out',
  'unless --include-deleted. billing --format json prints one object {as_of, rows, total,',
  'not_counted, warnings}; the other reports an array of rows. CSV has a header row with the names.',
].join('\n');

export const command: Command = {
  name: 'report',
  summary: 'billing, status, latency and errors reports (table, CSV, JSON, HTML)',
  usage:
    'report billing|status|latency|errors [--by day|week|month|quarter|year] [--from DATE] [--to DATE] ' +
    '[--kind pre-recorded|live|all] [--format table|csv|json|html] [--include-deleted] ' +
    '[--date created|completed] [--group-by kind|model|metadata.KEY[,...]] [--prices FILE] [--bom] [--csv-comments] ' +
    '[--db PATH] [--lock-wait 5s]',
  description: DESCRIPTION,
  options: {
    by: {
      type: 'string',
      value: 'UNIT',
      help: 'period of billing and latency rows: day, week (ISO), month, quarter or year (default day)',
    },
    from: { type: 'string', value: 'DATE', help: 'first period, inclusive, UTC (e.g. 2026-11-01, 2026-11)' },
    to: { type: 'string', value: 'DATE', help: 'last period, inclusive, UTC (e.g. 2026-11-30, 2026-W47)' },
    kind: {
      type: 'string',
      value: 'KIND',
      help: 'pre-recorded, live or all (default all), as sync takes it',
    },
    format: { type: 'string', value: 'FORMAT', help: 'table, csv, json or html (default table)' },
    'include-deleted': {
      type: 'boolean',
      help: 'also count jobs no longer listed upstream (deleted_at set)',
    },
    // billing only
    date: {
      type: 'string',
      value: 'created|completed',
      help: 'billing: which instant decides the period; completed matches an invoice (default created)',
    },
    'group-by': {
      type: 'string',
      value: 'KEYS',
      help: 'billing: kind, model or metadata.<key>, up to 3 comma-separated; one column each (default kind)',
    },
    prices: {
      type: 'string',
      value: 'FILE',
      help: 'billing: JSON price list {"currency","per_hour":{kind:price},"models":{model:{kind:price}}}; adds cost',
    },
    bom: { type: 'boolean', help: 'billing CSV: start with a UTF-8 byte order mark (for Excel)' },
    'csv-comments': {
      type: 'boolean',
      help: 'billing CSV: first lines "# as of ...", "# not counted ...", "# warning ..." (default off)',
    },
  },
  settings: ['db', 'lockWait'],
  positionals: true,
  async run({ flags, env, positionals, stdout }) {
    const name = reportName(positionals);
    const filter = reportFilter(name, flags);
    const format = parseFormat(stringFlag(flags, 'format'));
    const billing = name === 'billing' ? billingQuery(filter, flags) : undefined;
    const { db, lockWait } = resolveSettings(['db', 'lockWait'], [], flags, env);
    const text = await withReadOnlyDatabase(db, lockWait, (database) =>
      billing
        ? renderBillingReport(database, billing, format, flags)
        : renderReport(database, name, filter, format),
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
  return render(await runReport(db, name, filter), format, { title, subtitle });
}

async function renderBillingReport(
  db: RowSource,
  query: BillingQuery,
  format: OutputFormat,
  flags: FlagValues,
): Promise<string> {
  const report = await billingReport(db, query);
  return renderBilling(report, format, {
    title: billingTitle(query),
    subtitle: describeBilling(query),
    csv: { bom: flag(flags, 'bom'), comments: flag(flags, 'csv-comments') },
  });
}

/** The billing-only flags on top of the shared filter; they are refused on the other reports. */
function billingQuery(filter: ReportFilter, flags: FlagValues): BillingQuery {
  const dateText = stringFlag(flags, 'date');
  const date = DATE_BASES.find((basis): basis is DateBasis => basis === (dateText ?? 'created'));
  if (!date) throw new ConfigError('--date', `"${dateText}" is not one of ${DATE_BASES.join(', ')}`);
  const pricesPath = stringFlag(flags, 'prices');
  return {
    ...filter,
    date,
    groupBy: parseGroupBy(stringFlag(flags, 'group-by'), '--group-by'),
    prices: pricesPath === undefined ? undefined : loadPrices(pricesPath, '--prices'),
  };
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
  if (name !== 'billing') {
    for (const only of ['date', 'group-by', 'prices', 'bom', 'csv-comments']) {
      if (flags[only] !== undefined && flags[only] !== false)
        throw new ConfigError(`--${only}`, `applies to the billing report, not to ${name}`);
    }
  }
  const by = PERIOD_UNITS.find((unit): unit is PeriodUnit => unit === (byText ?? 'day'));
  if (!by) throw new ConfigError('--by', `"${byText}" is not one of ${PERIOD_UNITS.join(', ')}`);
  // `all` is what `sync --kind` calls both kinds: a report takes the same word (no filter).
  const kindText = stringFlag(flags, 'kind');
  const kind = JOB_KINDS.find((k): k is JobKind => k === kindText);
  if (kindText !== undefined && kindText !== 'all' && !kind)
    throw new ConfigError('--kind', `"${kindText}" is not one of ${[...JOB_KINDS, 'all'].join(', ')}`);
  return {
    by,
    range: rangeFromFlags(stringFlag(flags, 'from'), stringFlag(flags, 'to')),
    kind,
    includeDeleted: flag(flags, 'include-deleted'),
  };
}

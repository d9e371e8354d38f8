/**
 * The billing report as finance reads it, the one object every output format renders: exact
 * figures per period and group, a total summed from the jobs, and the trust markers (`as_of`, what
 * could not be counted, the empty rows left out, warnings in words).
 */
import { ConfigError } from '../errors.js';
import { JOB_KINDS, type JobKind } from '../kinds.js';
import type { RowSource } from '../store/index.js';
import { billingRows, lastOkSyncs, quarantinedInRange, uncountedJobs } from '../store/index.js';
import { ExactNumber } from '../util/json-writer.js';
import { counted } from '../util/plural.js';
import { fixedDecimals, sameExact, sumExact } from './format/decimal-text.js';
import { type GroupKey, NONE_GROUP } from './group-by.js';
import { type DateBasis, parsePeriod, periodsBetween } from './periods.js';
import type { Prices } from './prices.js';
import { type ReportFilter, reportParams } from './reports.js';

/** The most periods one report may hold; past it the range or --by is surely a mistake. */
const MAX_PERIODS = 20_000;

/** The filter of every report (its range of the `date` instant), then billing's own settings. */
export interface BillingQuery extends ReportFilter {
  /** Which instant decides a job's period; default created. */
  readonly date: DateBasis;
  readonly groupBy: readonly GroupKey[];
  /** List every period of the range with every group, zeros included; else only rows with jobs. */
  readonly includeEmpty: boolean;
  readonly prices?: Prices | undefined;
}

/** The figures, each exact: DuckDB's text of its DECIMAL, at the scale of FIGURE_DECIMALS. */
export interface Figures {
  readonly jobs: number;
  readonly billed_seconds: ExactNumber;
  readonly billed_hours: ExactNumber;
  /** With prices only: rounded to cents after summing the jobs. */
  readonly cost?: ExactNumber;
  readonly audio_hours: ExactNumber;
  readonly transcription_hours: ExactNumber;
}

/** Digits after the point of each figure (sql/101's seconds_figure and hours_figure, sql/103's cost_figure). */
export const FIGURE_DECIMALS = {
  billed_seconds: 3,
  billed_hours: 6,
  cost: 2,
  audio_hours: 6,
  transcription_hours: 6,
} as const;
export type FigureName = keyof typeof FIGURE_DECIMALS;

export interface BillingRow extends Figures {
  readonly period: string;
  /** One value per groupBy key, in order. */
  readonly groups: readonly string[];
}

export interface BillingReport {
  readonly query: BillingQuery;
  /** ISO instant of the oldest last successful sync among the kinds reported; null when none. */
  readonly as_of: string | null;
  readonly rows: readonly BillingRow[];
  /** Every period of the range, in order, rows or not: the chart's axis. */
  readonly periods: readonly string[];
  readonly total: Figures;
  readonly not_counted: { readonly quarantined: number; readonly pending: number };
  /** Rows of zeros (a period and group without jobs): listed (includeEmpty), or how many left out. */
  readonly empty_rows: { readonly listed: boolean; readonly left_out: number };
  /** Warnings in words; the last is `rounding` when there is one. */
  readonly warnings: readonly string[];
  /** Set when the rows do not add up to the total: which figures, and why. Shown in every format. */
  readonly rounding?: string;
}

export async function billingReport(
  db: RowSource,
  query: BillingQuery,
  now: Date = new Date(),
): Promise<BillingReport> {
  const params = { ...reportParams(query), date: query.date };
  const found = await billingRows(db, {
    ...params,
    g1: query.groupBy[0] ?? null,
    g2: query.groupBy[1] ?? null,
    g3: query.groupBy[2] ?? null,
    prices: query.prices ? JSON.stringify(query.prices) : null,
  });
  const totalRow = found.find((row) => row['is_total'] === true);
  assertPriced(totalRow, query.prices);
  const data = found.filter((row) => row['is_total'] !== true).map((row) => dataRow(row, query));
  const { rows, periods, leftOut } = shownRows(data, query, now);
  const open = await uncountedJobs(db, params);
  const quarantined = await quarantinedInRange(db, params);
  const asOf = await lastSyncs(db, query.kind ? [query.kind] : JOB_KINDS);
  const notCounted = { quarantined, pending: open.pending };
  const total = figures(totalRow ?? {}, query);
  const rounding = roundingNote(rows, total);
  return {
    query,
    as_of: asOf.at?.toISOString() ?? null,
    rows,
    periods,
    total,
    not_counted: notCounted,
    empty_rows: { listed: query.includeEmpty, left_out: leftOut },
    warnings: [...warnings(query, asOf, notCounted, open.undated), ...(rounding ? [rounding] : [])],
    ...(rounding ? { rounding } : {}),
  };
}

/**
 * The report's `rounding` note, or undefined. The total is never a sum of rounded rows, so a column
 * may differ from it by half a unit of its last digit per row.
 */
function roundingNote(rows: readonly BillingRow[], total: Figures): string | undefined {
  const off = (Object.keys(FIGURE_DECIMALS) as FigureName[]).flatMap((name) => {
    const want = total[name];
    if (want === undefined) return [];
    const sum = sumExact(rows.map((row) => row[name] ?? new ExactNumber('0')));
    return sameExact(sum, want) ? [] : [`${name} ${sum.text} (total ${want.text})`];
  });
  if (off.length === 0) return undefined;
  return `the rows add up to ${off.join(', ')}: each row and the total are rounded once from the exact sums of their own jobs`;
}

function dataRow(row: Record<string, unknown>, query: BillingQuery): BillingRow {
  const groups = query.groupBy.map((_key, i) => String(row[`g${i + 1}`] ?? NONE_GROUP));
  return { period: String(row['period']), groups, ...figures(row, query) };
}

function figures(row: Record<string, unknown>, query: BillingQuery): Figures {
  // Each figure is its DECIMAL's text (NULL for a period without jobs).
  const exact = (name: FigureName) =>
    new ExactNumber(fixedDecimals(new ExactNumber(String(row[name] ?? '0')), FIGURE_DECIMALS[name]));
  return {
    jobs: Number(row['jobs'] ?? 0),
    billed_seconds: exact('billed_seconds'),
    billed_hours: exact('billed_hours'),
    ...(query.prices ? { cost: exact('cost') } : {}),
    audio_hours: exact('audio_hours'),
    transcription_hours: exact('transcription_hours'),
  };
}

/** A cost left out would understate the bill: a job without a price refuses the report. */
function assertPriced(total: Record<string, unknown> | undefined, prices: Prices | undefined): void {
  const unpriced = (total?.['unpriced'] as string[] | null | undefined) ?? [];
  if (!prices || unpriced.length === 0) return;
  const [first = { kind: '' }, ...rest] = unpriced.map(priceKey);
  const { kind, model } = first;
  const field = model ? `per_hour.${kind} (or models${modelStep(model)}.${kind})` : `per_hour.${kind}`;
  throw new ConfigError('--prices', `${field}: no price for ${keyText(first)} jobs in this range`, {
    hint: `every kind billed needs a price; unpriced here: ${[first, ...rest].map(keyText).join(', ')}`,
  });
}

interface PriceKey {
  readonly kind: string;
  readonly model?: string;
}

/** An `unpriced` entry of report-billing.sql, `<kind>` or `<kind> <model>`: a kind has no space. */
function priceKey(entry: string): PriceKey {
  const space = entry.indexOf(' ');
  return space < 0 ? { kind: entry } : { kind: entry.slice(0, space), model: entry.slice(space + 1) };
}

/** A model as a prices file names it: as it is when it is a plain name, else quoted as JSON. */
const plainModel = (model: string) => /^[\w.-]+$/.test(model);
const modelStep = (model: string) => (plainModel(model) ? `.${model}` : `[${JSON.stringify(model)}]`);
const keyText = ({ kind, model }: PriceKey) =>
  model === undefined ? kind : `${kind} ${plainModel(model) ? model : JSON.stringify(model)}`;

/**
 * The rows shown: with includeEmpty every period of the range (--from or the first billed job, to
 * --to or now) times every group seen in the range, zeros included; else only the rows with jobs,
 * in the same order. `leftOut`: the rows of zeros not shown.
 */
function shownRows(data: readonly BillingRow[], query: BillingQuery, now: Date) {
  const starts = data.map((row) => parsePeriod(row.period)?.from.getTime() ?? Number.NaN);
  const ends = data.map((row) => parsePeriod(row.period)?.before.getTime() ?? Number.NaN);
  const first = starts.reduce((least, start) => Math.min(least, start), Number.POSITIVE_INFINITY);
  const from = query.range.from ?? (starts.length > 0 ? new Date(first) : undefined);
  const before =
    query.range.before ??
    new Date(ends.reduce((last, end) => (end > 0 ? Math.max(last, end) : last), now.getTime() + 1));
  if (!from) return { rows: [...data], periods: [], leftOut: 0 };
  const periods = periodsBetween(query.by, from, before);
  if (periods.length > MAX_PERIODS) {
    throw new ConfigError(
      '--by',
      `the range holds ${periods.length} ${query.by}s (at most ${MAX_PERIODS}); use a larger --by or a narrower --from/--to`,
    );
  }
  const combos = groupCombos(data, query);
  const leftOut = query.includeEmpty ? 0 : periods.length * combos.length - data.length;
  if (!query.includeEmpty) {
    const rows = [...data].sort((a, b) =>
      a.period < b.period ? -1 : a.period > b.period ? 1 : compareGroups(a.groups, b.groups),
    );
    return { rows, periods, leftOut };
  }
  const byKey = new Map(data.map((row) => [rowKey(row.period, row.groups), row]));
  const zero: Figures = figures({}, query);
  const rows = periods.flatMap((period) =>
    combos.map((groups) => byKey.get(rowKey(period, groups)) ?? { period, groups, ...zero }),
  );
  return { rows, periods, leftOut };
}

function groupCombos(data: readonly BillingRow[], query: BillingQuery): (readonly string[])[] {
  const combos = new Map<string, readonly string[]>();
  if (query.groupBy.length === 1 && query.groupBy[0] === 'kind') {
    for (const kind of query.kind ? [query.kind] : JOB_KINDS) combos.set(rowKey('', [kind]), [kind]);
  }
  for (const row of data) combos.set(rowKey('', row.groups), row.groups);
  const none = query.groupBy.map(() => NONE_GROUP);
  if (combos.size === 0) combos.set('', none);
  return [...combos.values()].sort(compareGroups);
}

/** Group values in code-point order, `(none)` last. */
function compareGroups(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) {
    const [x = '', y = ''] = [a[i], b[i]];
    if (x === y) continue;
    if (x === NONE_GROUP) return 1;
    if (y === NONE_GROUP) return -1;
    return x < y ? -1 : 1;
  }
  return 0;
}

function rowKey(period: string, groups: readonly string[]): string {
  return JSON.stringify([period, ...groups]);
}

/**
 * `at`: the oldest of the kinds' last successful syncs; undefined when none synced. `since`: the
 * kinds whose successful syncs all had a lower bound (a first sync --since), with the lowest.
 */
async function lastSyncs(db: RowSource, kinds: readonly JobKind[]) {
  const found = (await lastOkSyncs(db)).filter((row) => kinds.some((kind) => kind === row.kind));
  const never = kinds.filter((kind) => !found.some((row) => row.kind === kind));
  const times = found.map((row) => row.as_of.getTime());
  const since = found.flatMap((row) => (row.synced_from ? [{ kind: row.kind, from: row.synced_from }] : []));
  return { at: times.length > 0 ? new Date(Math.min(...times)) : undefined, never, since };
}

function warnings(
  query: BillingQuery,
  asOf: Awaited<ReturnType<typeof lastSyncs>>,
  notCounted: BillingReport['not_counted'],
  undated: number,
): string[] {
  const out: string[] = [];
  if (asOf.at === undefined) {
    out.push('no successful sync recorded: these figures may be incomplete; run `transcript-sync sync`');
  } else if (asOf.never.length > 0) {
    out.push(
      `${asOf.never.join(', ')}: no successful sync recorded; as_of covers ${JOB_KINDS.filter((k) => !asOf.never.includes(k)).join(', ')} only`,
    );
  }
  // A range that starts before a kind's first sync (no --from: the range has no start) misses its older jobs.
  for (const { kind, from } of asOf.since) {
    if (query.range.from !== undefined && query.range.from >= from) continue;
    const since = query.range.from?.toISOString() ?? 'DATE';
    out.push(
      `${kind}: synced from ${from.toISOString()} only (its first sync started there): jobs created before it are not in the mirror; \`transcript-sync sync --since ${since}\` fetches them`,
    );
  }
  // Only a range the user ended: the default range ends now, after every sync by definition.
  if (asOf.at && query.range.before !== undefined && query.range.before > asOf.at) {
    out.push(`the range ends after as_of (${asOf.at.toISOString()}): later jobs are not in the mirror yet`);
  }
  if (notCounted.quarantined > 0) {
    out.push(
      `${counted(notCounted.quarantined, 'quarantined record')} in range could not be counted; see \`transcript-sync quarantine list\``,
    );
  }
  const pending = counted(notCounted.pending, 'job');
  if (notCounted.pending > 0)
    out.push(`${pending} in range still queued or processing: billed once they complete`);
  const [has, is] = undated === 1 ? ['has', 'is'] : ['have', 'are'];
  const by = 'left out of this report by completion date; --date created counts them';
  if (undated > 0) out.push(`${counted(undated, 'done job')} ${has} no completed_at and ${is} ${by}`);
  return out;
}

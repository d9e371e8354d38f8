/**
 * Report periods, all in UTC: days `2026-11-21`, ISO 8601 weeks `2026-W47` (Monday to Sunday; week
 * 1 holds the year's first Thursday, so 2027-01-01 is in 2026-W53), months `2026-11`, quarters
 * `2026-Q4` and years `2026`. The labels are those of sql/101's period_of(). Date flags are
 * inclusive and take any of these shapes: `--to 2026-11-21` covers that whole day, `--to 2026-11`
 * that whole month, `--to 2026-W47` that whole week.
 */
import { ConfigError } from '../errors.js';

/** Which instant of a job places it in a period: when it was created, or completed. */
export const DATE_BASES = ['created', 'completed'] as const;
export type DateBasis = (typeof DATE_BASES)[number];

export const PERIOD_UNITS = ['day', 'week', 'month', 'quarter', 'year'] as const;
export type PeriodUnit = (typeof PERIOD_UNITS)[number];

/** A half-open range of instants: from <= instant < before. Either end may be open. */
export interface InstantRange {
  readonly from: Date | undefined;
  readonly before: Date | undefined;
}

/** A period: its unit and the instants it spans, from its first instant to the next period's. */
interface Period {
  readonly unit: PeriodUnit;
  readonly from: Date;
  readonly before: Date;
}

const DAY_MS = 86_400_000;
const SHAPES = 'YYYY-MM-DD, YYYY-Www, YYYY-MM, YYYY-Qn or YYYY (UTC)';
const PATTERNS: readonly [PeriodUnit, RegExp][] = [
  ['day', /^(\d{4})-(\d{2})-(\d{2})$/],
  ['week', /^(\d{4})-W(\d{2})$/],
  ['month', /^(\d{4})-(\d{2})$/],
  ['quarter', /^(\d{4})-Q([1-4])$/],
  ['year', /^(\d{4})$/],
];

/** Parses a period label into the UTC instants it spans; undefined when it is none or not a real date. */
export function parsePeriod(text: string): Period | undefined {
  for (const [unit, pattern] of PATTERNS) {
    const match = pattern.exec(text);
    if (!match) continue;
    const [y, n, d] = [Number(match[1]), Number(match[2] ?? 1), Number(match[3] ?? 1)];
    const start =
      unit === 'week'
        ? new Date(isoWeekOneMonday(y) + (n - 1) * 7 * DAY_MS)
        : new Date(Date.UTC(y, unit === 'quarter' ? (n - 1) * 3 : n - 1, d));
    // A round trip catches 2026-02-30 (rolled into March), month 13 and week 54.
    if ((unit === 'week' && n < 1) || periodOf(unit, start) !== text) return undefined;
    return { unit, from: start, before: nextStart(unit, start) };
  }
  return undefined;
}

/** The instants covered by `--from` and `--to` (both inclusive, each any period shape). */
export function rangeFromFlags(from: string | undefined, to: string | undefined): InstantRange {
  const start = from === undefined ? undefined : requirePeriod('--from', from).from;
  const before = to === undefined ? undefined : requirePeriod('--to', to).before;
  if (start && before && start >= before) {
    throw new ConfigError(
      '--from',
      `${from} is after --to ${to}; the range is inclusive, so --from must not be later than --to`,
    );
  }
  return { from: start, before };
}

/** The period `text` names, of unit `by` when given, or a ConfigError naming `setting`. */
function requirePeriod(setting: string, text: string, by?: PeriodUnit): Period {
  const parsed = parsePeriod(text);
  if (!parsed || (by && parsed.unit !== by))
    throw new ConfigError(setting, `"${text}" is not a ${by ?? 'date'}; use ${SHAPES}`);
  return parsed;
}

/** Years, months and days from a period's start to the next one's. */
const STEPS: Readonly<Record<PeriodUnit, readonly [number, number, number]>> = {
  day: [0, 0, 1],
  week: [0, 0, 7],
  month: [0, 1, 0],
  quarter: [0, 3, 0],
  year: [1, 0, 0],
};

/** The first instant of the period that holds `instant`. */
export function startOf(by: PeriodUnit, instant: Date): Date {
  const [y, m] = [instant.getUTCFullYear(), instant.getUTCMonth()];
  const day = Date.UTC(y, m, instant.getUTCDate());
  if (by === 'day') return new Date(day);
  // getUTCDay: Sunday 0 ... Saturday 6; ISO weeks start on Monday.
  if (by === 'week') return new Date(day - ((instant.getUTCDay() + 6) % 7) * DAY_MS);
  // Months, quarters and years start on the first of a month that is a whole number of steps into the year.
  const [years, months] = STEPS[by];
  return new Date(Date.UTC(y, m - (m % (12 * years + months)), 1));
}

/** The first instant after the period that starts at `start` (a period's first instant). */
function nextStart(by: PeriodUnit, start: Date): Date {
  const [years, months, days] = STEPS[by];
  return new Date(
    Date.UTC(start.getUTCFullYear() + years, start.getUTCMonth() + months, start.getUTCDate() + days),
  );
}

/** The label of the period that holds `instant`, in UTC. */
export function periodOf(by: PeriodUnit, instant: Date): string {
  const iso = instant.toISOString();
  switch (by) {
    case 'day':
      return iso.slice(0, 10);
    case 'week': {
      const monday = startOf('week', instant).getTime();
      // The ISO year is the year of the week's Thursday.
      const year = new Date(monday + 3 * DAY_MS).getUTCFullYear();
      const week = Math.round((monday - isoWeekOneMonday(year)) / (7 * DAY_MS)) + 1;
      return `${year}-W${String(week).padStart(2, '0')}`;
    }
    case 'month':
      return iso.slice(0, 7);
    case 'quarter':
      return `${iso.slice(0, 4)}-Q${Math.floor(instant.getUTCMonth() / 3) + 1}`;
    case 'year':
      return iso.slice(0, 4);
  }
}

/** Labels of every period that meets [from, before), in order. */
export function periodsBetween(by: PeriodUnit, from: Date, before: Date): string[] {
  const labels: string[] = [];
  for (let start = startOf(by, from); start < before; start = nextStart(by, start)) {
    labels.push(periodOf(by, start));
  }
  return labels;
}

export function periodRange(by: PeriodUnit, period: string): Period {
  return requirePeriod('period', period, by);
}

/** ms of the Monday that starts ISO week 1 of `year`: the week holding January 4th. */
function isoWeekOneMonday(year: number): number {
  return startOf('week', new Date(Date.UTC(year, 0, 4))).getTime();
}

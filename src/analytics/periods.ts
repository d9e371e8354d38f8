/**
 * Report periods: UTC calendar days (`YYYY-MM-DD`) and months (`YYYY-MM`). A job belongs to the
 * period of its created_at in UTC, so 23:59:59.999Z is still its own day. Date flags are inclusive:
 * `--to 2026-11-21` covers that whole day, `--to 2026-11` that whole month.
 */
import { ConfigError } from '../errors.js';

export const PERIOD_UNITS = ['day', 'month'] as const;
export type PeriodUnit = (typeof PERIOD_UNITS)[number];

/** A half-open range of instants: from <= created_at < before. Either end may be open. */
export interface InstantRange {
  readonly from: Date | undefined;
  readonly before: Date | undefined;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTH = /^(\d{4})-(\d{2})$/;

interface Parsed {
  readonly unit: PeriodUnit;
  /** First instant of the period. */
  readonly start: Date;
  /** First instant after the period. */
  readonly end: Date;
}

/** Parses `YYYY-MM-DD` or `YYYY-MM` into the UTC instants it spans; undefined when it is neither or not a real date. */
export function parsePeriod(text: string): Parsed | undefined {
  const day = DAY.exec(text);
  if (day) {
    const [y, m, d] = [Number(day[1]), Number(day[2]), Number(day[3])];
    const start = new Date(Date.UTC(y, m - 1, d));
    // Date.UTC rolls 2026-02-30 over into March: a round trip catches impossible dates.
    if (start.getUTCFullYear() !== y || start.getUTCMonth() !== m - 1 || start.getUTCDate() !== d)
      return undefined;
    return { unit: 'day', start, end: new Date(Date.UTC(y, m - 1, d + 1)) };
  }
  const month = MONTH.exec(text);
  if (month) {
    const [y, m] = [Number(month[1]), Number(month[2])];
    if (m < 1 || m > 12) return undefined;
    return { unit: 'month', start: new Date(Date.UTC(y, m - 1, 1)), end: new Date(Date.UTC(y, m, 1)) };
  }
  return undefined;
}

/** The instants covered by `--from` and `--to` (both inclusive, each a day or a month). */
export function rangeFromFlags(from: string | undefined, to: string | undefined): InstantRange {
  const start = from === undefined ? undefined : requirePeriod('--from', from).start;
  const before = to === undefined ? undefined : requirePeriod('--to', to).end;
  if (start && before && start >= before) {
    throw new ConfigError(
      '--from',
      `${from} is after --to ${to}; the range is inclusive, so --from must not be later than --to`,
    );
  }
  return { from: start, before };
}

function requirePeriod(flagName: string, text: string): Parsed {
  const parsed = parsePeriod(text);
  if (!parsed) throw new ConfigError(flagName, `"${text}" is not a date; use YYYY-MM-DD or YYYY-MM (UTC)`);
  return parsed;
}

/** The period that holds `instant`, in UTC. */
export function periodOf(by: PeriodUnit, instant: Date): string {
  const iso = instant.toISOString();
  return by === 'day' ? iso.slice(0, 10) : iso.slice(0, 7);
}

/** The range of one period given as text (`YYYY-MM-DD` for days, `YYYY-MM` for months). */
export function periodRange(by: PeriodUnit, period: string): { readonly from: Date; readonly before: Date } {
  const parsed = parsePeriod(period);
  if (!parsed || parsed.unit !== by) {
    const shape = by === 'day' ? 'YYYY-MM-DD' : 'YYYY-MM';
    throw new ConfigError('period', `"${period}" is not a ${by}; use ${shape} (UTC)`);
  }
  return { from: parsed.start, before: parsed.end };
}

/**
 * The last period that ended at or before `now`: yesterday (UTC) for days, last month for months.
 * A period is complete once it has ended; jobs created in it may still complete later, which is
 * why scheduled reports rewrite a period whose figures changed.
 */
export function lastCompletePeriod(by: PeriodUnit, now: Date): string {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const previous =
    by === 'day' ? new Date(Date.UTC(y, m, now.getUTCDate() - 1)) : new Date(Date.UTC(y, m - 1, 1));
  return periodOf(by, previous);
}

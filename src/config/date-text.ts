/** Dates and instants as a person types them, read strictly: the one reading of every date flag. */

const DATE_EXAMPLES = 'e.g. 2026-01-31 or 2026-01-31T08:00:00Z';
/** Made at its first use (a day the month lacks): a DateTimeFormat loads ICU's data, which most runs never need otherwise. */
let monthName: Intl.DateTimeFormat | undefined;
/** YYYY-MM-DD, then optionally a time (T or a space) to the minute, second or fraction, and a zone. */
const DATE_TEXT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|([+-])(\d{2}):?(\d{2}))?)?$/i;

export type DateParse =
  | { readonly ok: true; readonly date: Date }
  /** `dated`: the text has a date's shape, and the calendar refuses it (2026-02-30). */
  | { readonly ok: false; readonly problem: string; readonly dated: boolean };

/**
 * The one reading of a date or instant a person gives, for every flag that takes one (--since,
 * simulate's --start and --end, the days of report's --from and --to): ISO 8601, a day
 * (`2026-01-31`: its midnight, UTC) or an instant (`2026-01-31T08:00:00Z`, `...T08:00+02:00`; one
 * without a zone is UTC). A day or time the calendar does not have (2026-02-30, month 13, 24:00) is
 * refused with the reason, never rolled over into the next month as JavaScript's Date does.
 */
export function parseDateText(text: string): DateParse {
  const match = DATE_TEXT.exec(text.trim());
  if (!match)
    return {
      ok: false,
      problem: `"${text}" is not an ISO 8601 date or instant (${DATE_EXAMPLES})`,
      dated: false,
    };
  const [y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0] = match.slice(1, 7).map((part) => Number(part ?? 0));
  const notADate = (why: string): DateParse => ({
    ok: false,
    problem: `"${text}" is not a date: ${why}`,
    dated: true,
  });
  if (mo < 1 || mo > 12) return notADate(`there is no month ${mo}`);
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = mo === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(mo) ? 30 : 31;
  if (d < 1 || d > days) {
    monthName ??= new Intl.DateTimeFormat('en', { month: 'long', timeZone: 'UTC' });
    return notADate(`${monthName.format(Date.UTC(2000, mo - 1, 1))} ${y} has ${days} days`);
  }
  if (h > 23 || mi > 59 || sec > 59)
    return notADate(`${match[4]}:${match[5]}${match[6] ? `:${match[6]}` : ''} is not a time of day`);
  const [sign, offsetH, offsetM] = [match[9], Number(match[10] ?? 0), Number(match[11] ?? 0)];
  if (offsetH > 23 || offsetM > 59) return notADate(`${match[8]} is not a time zone offset`);
  const offsetMs = (sign === '-' ? -1 : 1) * (offsetH * 60 + offsetM) * 60_000;
  const ms = Number((match[7]?.slice(1) ?? '').padEnd(3, '0').slice(0, 3));
  // setUTCFullYear, not Date.UTC, which reads the years 0-99 as 1900-1999.
  const utc = new Date(0);
  utc.setUTCFullYear(y, mo - 1, d);
  utc.setUTCHours(h, mi, sec, ms);
  utc.setTime(utc.getTime() - offsetMs);
  return { ok: true, date: utc };
}

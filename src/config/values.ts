/**
 * The kinds of value a setting holds: zod schemas from a flag's or variable's text to a typed value.
 * A refusal reads after the setting's name (`--lookback: "15" has no unit ...`), which resolve.ts adds.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { JOB_KINDS, type JobKind } from '../kinds.js';
import { MEMORY_FLOOR } from '../memory/budget.js';
import { parseBytes } from '../util/bytes.js';
import { parseDurationStrict } from '../util/duration.js';
import { parseSchedule } from './schedule.js';

/** Refuses the value with `message` (read after the setting's name). */
export function refuse(ctx: z.core.$RefinementCtx, message: string): never {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
}

export const text = z.string().trim().min(1, 'is empty');

/**
 * A file or folder path. A leading `~` is the home folder only to a shell, and none expanded it
 * here (quoted, or from an env file): taken as it is, it would name a folder called `~`.
 */
export const pathText = text.refine((path) => !/^~(\/|$)/.test(path), {
  message:
    'starts with ~, which only a shell turns into the home folder: write the folder out (e.g. $HOME/...)',
});

/** A duration with a unit, in ms; zero only where `allowZero` says it means something. */
export const durationOf = (options: { allowZero?: boolean } = {}) =>
  z.string().transform((value, ctx) => {
    const parsed = parseDurationStrict(value, options);
    return parsed.ok ? parsed.ms : refuse(ctx, parsed.problem);
  });
export const duration = durationOf();

/** A duration from `min` to `max` ms; `range` says them in the refusal (`2d to 366d`). */
export const durationBetween = (min: number, max: number, range: string) =>
  durationOf().refine((ms) => ms >= min && ms <= max, { message: `must be a duration from ${range}` });
/** A duration a timer waits out: a Node timer holds up to 24d, and ends a longer one at once. */
export const timerDuration = durationBetween(1, 24 * 86_400_000, '1ms to 24d');

/** A memory budget: a size (a bare number is bytes), at least the floor a sync runs in (memory/budget.ts). */
export const memoryBudget = z.string().transform((value, ctx) => {
  const bytes = parseBytes(value);
  if (bytes === undefined) return refuse(ctx, 'is not a size (use e.g. 512MB, 256MiB, 1GB)');
  if (bytes < MEMORY_FLOOR)
    return refuse(ctx, `is too little: every command needs at least ${MEMORY_FLOOR / 1e6}MB`);
  return bytes;
});

export const bytesBetween = (min: number, max: number, range: string) =>
  z.string().transform((value, ctx) => {
    const bytes = parseBytes(value);
    if (bytes === undefined || bytes < min || bytes > max)
      return refuse(ctx, `must be a size from ${range} (e.g. 8MiB, 512KiB)`);
    return bytes;
  });

/** A number that passes `check`, else refused with `message` (which says the range); blank is empty, not 0. */
const numberWhere = (message: string, check: (n: number) => boolean) =>
  text.pipe(z.coerce.number<string>({ error: message }).refine(check, message));

/** A number above `min`; from `min` to `max` (both included); of at least `min` (fractions allowed). */
export const numberAbove = (min: number) => numberWhere(`must be a number above ${min}`, (n) => n > min);
export const numberBetween = (min: number, max: number) =>
  numberWhere(`must be a number from ${min} to ${max}`, (n) => n >= min && n <= max);
export const numberFrom = (min: number) => numberWhere(`must be a number of ${min} or more`, (n) => n >= min);

export const intBetween = (min: number, max: number) =>
  numberWhere(
    `must be a whole number from ${min} to ${max}`,
    (n) => Number.isInteger(n) && n >= min && n <= max,
  );
export const wholeFrom = (min: number) =>
  numberWhere(`must be a whole number of at least ${min}`, (n) => Number.isInteger(n) && n >= min);

export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: () => `must be one of ${values.join(', ')}` });

/** A URL of one of `schemes`, as given; a host without a scheme is refused with the URL it means. */
const urlOf = (schemes: readonly [string, ...string[]], example: string) =>
  z.string().transform((value, ctx) => {
    const given = value.trim();
    let url: URL | undefined;
    try {
      url = new URL(given);
    } catch {
      // refused below
    }
    if (url && schemes.includes(url.protocol.slice(0, -1)) && url.host !== '') return given;
    const names = schemes.map((scheme) => `${scheme}://`).join(' or ');
    const bare = /^(localhost|[\w-]+(\.[\w-]+)+|\[[\da-f:]+\])(:\d+)?(\/\S*)?$/i.test(given);
    return refuse(
      ctx,
      bare
        ? `has no scheme; write ${schemes[0]}://${given}`
        : url
          ? `must start with ${names} (e.g. ${example})`
          : `is not a URL (e.g. ${example})`,
    );
  });

export const httpUrl = urlOf(['http', 'https'], 'https://api.example.com').transform((u) =>
  u.replace(/\/+$/, ''),
);

/**
 * An http(s) URL kept as given (normalized by URL), e.g. a webhook's. Not one with a user name or
 * password: fetch posts to none. The message leaves the URL out (resolve.ts echoes it masked).
 */
export const postUrl = z.string().transform((value, ctx) => {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || !/^https?:$/.test(url.protocol)) return refuse(ctx, 'must be an http:// or https:// URL');
  if (url.username === '' && url.password === '') return url.toString();
  const fix = 'put the token in the path or query instead';
  return refuse(ctx, `must not carry a user name or password, which fetch refuses to post to; ${fix}`);
});

export const redisUrl = urlOf(['redis', 'rediss'], 'redis://127.0.0.1:6379');

/** A TCP port; 0 asks the system for a free one. */
export const port = z
  .string()
  .regex(/^\d+$/, 'is not a port (0-65535; 0 picks a free one)')
  .transform(Number)
  .refine((n) => n <= 65_535, 'is not a port (0-65535; 0 picks a free one)');

/** `pre-recorded`, `live` or `all` (both), as the kinds it names. */
export const kinds = z.string().transform((value, ctx): readonly JobKind[] => {
  if (value === 'all') return JOB_KINDS;
  const kind = JOB_KINDS.find((k) => k === value);
  if (kind) return [kind];
  return refuse(ctx, 'must be pre-recorded, live or all');
});

/** A switch: `true` from its flag; its environment variable says true/false, 1/0 or yes/no. */
const onOff = z.union([z.boolean(), z.string()]).transform((value, ctx) => {
  if (typeof value === 'boolean') return value;
  if (/^(true|1|yes)$/i.test(value.trim())) return true;
  if (/^(false|0|no)$/i.test(value.trim())) return false;
  return refuse(ctx, 'must be true or false (or 1, 0)');
});

/** A switch's part of its row: off unless given. */
export const off = { switch: true, schema: onOff, default: 'false' } as const;

/** A schedule: a duration or a 5-field cron expression (schedule.ts). */
export const schedule = parsedBy((value) => parseSchedule(value, ''));

const DATE_EXAMPLES = 'e.g. 2026-01-31 or 2026-01-31T08:00:00Z';
/** Made at its first use (a day the month lacks): a DateTimeFormat loads ICU's data. */
let monthName: Intl.DateTimeFormat | undefined;
/** YYYY-MM-DD, then optionally a time (T or a space) to the minute, second or fraction, and a zone. */
const DATE_TEXT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|([+-])(\d{2}):?(\d{2}))?)?$/i;

type DateParse =
  | { readonly ok: true; readonly date: Date }
  /** `dated`: the text has a date's shape, and the calendar refuses it (2026-02-30). */
  | { readonly ok: false; readonly problem: string; readonly dated: boolean };

/**
 * The one reading of every date flag (--since, simulate's --start and --end, the days of report's
 * --from and --to): ISO 8601, a day (its midnight, UTC) or an instant (without a zone, UTC). A day
 * or time the calendar lacks (2026-02-30, 24:00) is refused, never rolled over as Date does.
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

/** A date or instant (parseDateText), not in the future (a window that starts later than now holds nothing). */
export const pastInstant = z.string().transform((value, ctx) => {
  const parsed = parseDateText(value);
  if (!parsed.ok) return refuse(ctx, parsed.problem);
  if (parsed.date.getTime() <= Date.now()) return parsed.date;
  return refuse(ctx, 'is in the future; give a past date, e.g. 2026-01-01');
});

/** Keys of custom_metadata, comma-separated (blanks around them dropped); none when empty. */
export const metadataKeys = z.string().transform((value): readonly string[] =>
  value
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== ''),
);

/** `KEY=VALUE`: a custom_metadata key (not blank) and the value it holds, as text. */
export const metadataMatch = z.string().transform((value, ctx) => {
  const at = value.indexOf('=');
  const key = at < 0 ? '' : value.slice(0, at).trim();
  if (key === '') return refuse(ctx, 'must be KEY=VALUE, e.g. customer=acme');
  return { key, value: value.slice(at + 1) };
});

/** An S3 bucket name: 3-63 lowercase letters, digits, dots and hyphens, a letter or digit at each end. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * Where --publish writes: `s3://BUCKET[/PREFIX]` (no trailing slash), or a folder made absolute.
 * Other text that starts like a URL is refused: `gs://lake` never becomes a folder named after it.
 */
export const publishLocation = pathText.transform((value, ctx) => {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(value)) return resolve(value);
  const example = 's3://lake/transcripts';
  const match = /^s3:\/\/([^/]*)(\/.*)?$/.exec(value);
  if (!match) {
    return refuse(
      ctx,
      value.toLowerCase().startsWith('s3:')
        ? `is not an s3://BUCKET/PREFIX URL (e.g. ${example})`
        : `takes a folder or an s3://BUCKET/PREFIX URL (e.g. ${example}); for a folder whose name has a colon write ./ before it`,
    );
  }
  const [, bucket = '', path = ''] = match;
  // Shown masked (maskPassword): the whole part before @ is a credential.
  if (bucket.includes('@')) {
    return refuse(
      ctx,
      'must not carry credentials; the AWS SDK takes them from its own chain (AWS_PROFILE, AWS_ACCESS_KEY_ID, a role; docs/operating.md)',
    );
  }
  if (!BUCKET_NAME.test(bucket) || bucket.includes('..')) {
    return refuse(
      ctx,
      `has no valid bucket name (3-63 lowercase letters, digits, dots and hyphens; e.g. ${example})`,
    );
  }
  const prefix = path.replace(/^\/+|\/+$/g, '');
  if (/\/\/|[\\?#]/.test(prefix) || prefix.split('/').some((part) => part === '.' || part === '..')) {
    return refuse(ctx, `has a prefix with an empty, . or .. part, or a ? # \\ (e.g. ${example})`);
  }
  return prefix === '' ? `s3://${bucket}` : `s3://${bucket}/${prefix}`;
});

/** A value read by its layer's parser (a price list, group keys); its ConfigError becomes the issue. */
export function parsedBy<T>(parse: (value: string) => T) {
  return z.string().transform((value, ctx): T => {
    try {
      return parse(value);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return refuse(ctx, problemOf(error));
    }
  });
}

/** A ConfigError's text after its setting's name, with its hint. */
function problemOf(error: ConfigError): string {
  const head = `${error.setting}: `;
  const problem = error.message.startsWith(head) ? error.message.slice(head.length) : error.message;
  return error.hint ? `${problem.trim()}; ${error.hint}` : problem.trim();
}

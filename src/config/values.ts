/**
 * The kinds of value a setting holds, as zod schemas that turn the text of a flag or an environment
 * variable (a switch: `true` from its flag) into a typed value. A refusal is an issue whose message
 * reads after the setting's name (`--lookback: "15" has no unit ...`); src/config/resolve.ts adds
 * the name and, unless the message quotes it already, the text given.
 */

import { resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { JOB_KINDS, type JobKind } from '../kinds.js';
import { MEMORY_FLOOR } from '../memory/budget.js';
import { parseBytes } from '../util/bytes.js';
import { parseDurationStrict } from '../util/duration.js';
import { parseDateText } from './date-text.js';
import { parseSchedule } from './schedule.js';

/**
 * A sentence, read after the setting's name, for an issue its schema left in zod's own words
 * (`Too small: expected number to be >0`): what a value of the setting must be.
 */
export function settingIssue(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.expected === 'number' ? 'must be a number' : `must be ${issue.expected}`;
    case 'too_small':
      return issue.origin === 'number'
        ? `must be a number ${issue.inclusive ? 'of at least' : 'above'} ${issue.minimum}`
        : 'is too short';
    case 'too_big':
      return issue.origin === 'number'
        ? `must be a number ${issue.inclusive ? 'of at most' : 'below'} ${issue.maximum}`
        : 'is too long';
    case 'invalid_value':
      return `must be one of ${issue.values.map(String).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'url' ? 'is not a URL' : 'is not in the form it takes';
    default:
      return 'is not a value it takes';
  }
}

/** Text that must not be blank. */
export const text = z.string().trim().min(1, 'is empty');

/** A duration with a unit, in ms; zero only where `allowZero` says it means something. */
export const durationOf = (options: { allowZero?: boolean } = {}) =>
  z.string().transform((value, ctx) => {
    const parsed = parseDurationStrict(value, options);
    if (!parsed.ok) {
      ctx.addIssue({ code: 'custom', message: parsed.problem });
      return z.NEVER;
    }
    return parsed.ms;
  });
export const duration = durationOf();

/** A duration from `min` to `max` ms; `range` says them in the refusal (`2d to 366d`). */
export const durationBetween = (min: number, max: number, range: string) =>
  durationOf().refine((ms) => ms >= min && ms <= max, { message: `must be a duration from ${range}` });

/** A memory budget: a size (a bare number is bytes), at least the floor a sync runs in (memory/budget.ts). */
export const memoryBudget = z.string().transform((value, ctx) => {
  const bytes = parseBytes(value);
  if (bytes === undefined) {
    ctx.addIssue({ code: 'custom', message: 'is not a size (use e.g. 512MB, 256MiB, 1GB)' });
    return z.NEVER;
  }
  if (bytes < MEMORY_FLOOR) {
    ctx.addIssue({
      code: 'custom',
      message: `is too little: every command needs at least ${MEMORY_FLOOR / 1e6}MB`,
    });
    return z.NEVER;
  }
  return bytes;
});

export const bytesBetween = (min: number, max: number, range: string) =>
  z.string().transform((value, ctx) => {
    const bytes = parseBytes(value);
    if (bytes === undefined || bytes < min || bytes > max) {
      ctx.addIssue({ code: 'custom', message: `must be a size from ${range} (e.g. 8MiB, 512KiB)` });
      return z.NEVER;
    }
    return bytes;
  });

/** A number that passes `check`, else refused with `message` (which says the range). */
const numberWhere = (message: string, check: (n: number) => boolean) =>
  z.coerce.number({ error: message }).refine(check, message);

/** A number above `min`; from `min` to `max` (both included); of at least `min` (fractions allowed). */
export const numberAbove = (min: number) => numberWhere(`must be a number above ${min}`, (n) => n > min);
export const numberBetween = (min: number, max: number) =>
  numberWhere(`must be a number from ${min} to ${max}`, (n) => n >= min && n <= max);
export const numberFrom = (min: number) => numberWhere(`must be a number of ${min} or more`, (n) => n >= min);

/** A whole number from `min` to `max`; of at least `min`. */
export const intBetween = (min: number, max: number) =>
  numberWhere(
    `must be a whole number from ${min} to ${max}`,
    (n) => Number.isInteger(n) && n >= min && n <= max,
  );
export const wholeFrom = (min: number) =>
  numberWhere(`must be a whole number of at least ${min}`, (n) => Number.isInteger(n) && n >= min);

/** One of `values`, refused with the list. */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: () => `must be one of ${values.join(', ')}` });

/**
 * A URL of one of `schemes`, as given; text without a scheme that names a host (`127.0.0.1:8787`,
 * `localhost:8787/x`) is refused with the URL it most likely means.
 */
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
    const message = bare
      ? `has no scheme; write ${schemes[0]}://${given}`
      : url
        ? `must start with ${names} (e.g. ${example})`
        : `is not a URL (e.g. ${example})`;
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  });

export const httpUrl = urlOf(['http', 'https'], 'https://api.example.com').transform((u) =>
  u.replace(/\/+$/, ''),
);

/** An http(s) URL kept as given (normalized by URL), e.g. a webhook's. */
export const postUrl = z.string().transform((value, ctx) => {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.toString();
  } catch {
    // refused below
  }
  ctx.addIssue({ code: 'custom', message: 'must be an http:// or https:// URL' });
  return z.NEVER;
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
  ctx.addIssue({ code: 'custom', message: 'must be pre-recorded, live or all' });
  return z.NEVER;
});

/** A switch: `true` from its flag; its environment variable says true/false, 1/0 or yes/no. */
export const onOff = z.union([z.boolean(), z.string()]).transform((value, ctx) => {
  if (typeof value === 'boolean') return value;
  if (/^(true|1|yes)$/i.test(value.trim())) return true;
  if (/^(false|0|no)$/i.test(value.trim())) return false;
  ctx.addIssue({ code: 'custom', message: 'must be true or false (or 1, 0)' });
  return z.NEVER;
});

/** A schedule: a duration or a 5-field cron expression (schedule.ts). */
export const schedule = parsedBy((value) => parseSchedule(value, ''));

/** A date or instant (parseDateText), as a Date. */
const instant = z.string().transform((value, ctx) => {
  const parsed = parseDateText(value);
  if (parsed.ok) return parsed.date;
  ctx.addIssue({ code: 'custom', message: parsed.problem });
  return z.NEVER;
});

/** A date or instant (parseDateText), not in the future (a window that starts later than now holds nothing). */
export const pastInstant = instant.transform((date, ctx) => {
  if (date.getTime() <= Date.now()) return date;
  ctx.addIssue({ code: 'custom', message: 'is in the future; give a past date, e.g. 2026-01-01' });
  return z.NEVER;
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
  if (key === '') {
    ctx.addIssue({ code: 'custom', message: 'must be KEY=VALUE, e.g. customer=acme' });
    return z.NEVER;
  }
  return { key, value: value.slice(at + 1) };
});

/** An S3 bucket name: 3-63 lowercase letters, digits, dots and hyphens, a letter or digit at each end. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * Where --publish writes: `s3://BUCKET[/PREFIX]` kept as a URL (no trailing slash), or a folder made
 * absolute. Text that starts like a URL (`scheme:`) is refused unless it is such an s3:// URL, so
 * `s3:/lake/x` or `gs://lake` never becomes a folder named after it.
 */
export const publishLocation = text.transform((value, ctx) => {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(value)) return resolve(value);
  const example = 's3://lake/transcripts';
  const refuse = (message: string) => {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  };
  const match = /^s3:\/\/([^/]*)(\/.*)?$/.exec(value);
  if (!match) {
    return refuse(
      value.toLowerCase().startsWith('s3:')
        ? `is not an s3://BUCKET/PREFIX URL (e.g. ${example})`
        : `takes a folder or an s3://BUCKET/PREFIX URL (e.g. ${example}); for a folder whose name has a colon write ./ before it`,
    );
  }
  const [, bucket = '', path = ''] = match;
  // Credentials in the URL pass here so that this refusal never echoes them: resolveRunOptions
  // refuses them without quoting the value.
  if (bucket.includes('@')) return value;
  if (!BUCKET_NAME.test(bucket) || bucket.includes('..')) {
    return refuse(
      `has no valid bucket name (3-63 lowercase letters, digits, dots and hyphens; e.g. ${example})`,
    );
  }
  const prefix = path.replace(/^\/+|\/+$/g, '');
  if (/\/\/|[\\?#]/.test(prefix) || prefix.split('/').some((part) => part === '.' || part === '..')) {
    return refuse(`has a prefix with an empty, . or .. part, or a ? # \\ (e.g. ${example})`);
  }
  return prefix === '' ? `s3://${bucket}` : `s3://${bucket}/${prefix}`;
});

/**
 * A value read by a parser of the layer that owns it (a price list, group keys, a period), which
 * throws a ConfigError; its problem (and hint) becomes the issue.
 */
export function parsedBy<T>(parse: (value: string) => T) {
  return z.string().transform((value, ctx): T => {
    try {
      return parse(value);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      ctx.addIssue({ code: 'custom', message: problemOf(error) });
      return z.NEVER;
    }
  });
}

/** A ConfigError's text after its setting's name, with its hint. */
function problemOf(error: ConfigError): string {
  const head = `${error.setting}: `;
  const problem = error.message.startsWith(head) ? error.message.slice(head.length) : error.message;
  return error.hint ? `${problem.trim()}; ${error.hint}` : problem.trim();
}

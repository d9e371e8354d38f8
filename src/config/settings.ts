/**
 * Every setting, read from flags and an environment handed in (never process.env itself: only
 * src/cli/main.ts binds that). Every setting has an environment variable, usually a flag, a
 * default, and a zod schema that turns its text into a typed value; a flag wins over the
 * environment. A bad value is a ConfigError naming the flag or variable it came from (exit code 2).
 */
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { MEMORY_FLOOR } from '../memory/budget.js';
import { parseBytes } from '../util/bytes.js';
import { parseDurationStrict } from '../util/duration.js';

/** A duration with a unit, in ms; zero only where `allowZero` says it means something. */
const durationOf = (options: { allowZero?: boolean } = {}) =>
  z.string().transform((text, ctx) => {
    const parsed = parseDurationStrict(text, options);
    if (!parsed.ok) {
      ctx.addIssue({ code: 'custom', message: parsed.problem });
      return z.NEVER;
    }
    return parsed.ms;
  });
const duration = durationOf();

/** A memory budget: a size (a bare number is bytes), at least the floor a sync runs in (src/memory/budget.ts). */
const memoryBudget = z.string().transform((text, ctx) => {
  const bytes = parseBytes(text);
  if (bytes === undefined) {
    ctx.addIssue({ code: 'custom', message: 'is not a size (use e.g. 512MB, 256MiB, 1GB)' });
    return z.NEVER;
  }
  if (bytes < MEMORY_FLOOR) {
    ctx.addIssue({
      code: 'custom',
      message: `is too little for a sync: give it at least ${MEMORY_FLOOR / 1e6}MB`,
    });
    return z.NEVER;
  }
  return bytes;
});
const bytesBetween = (min: number, max: number, range: string) =>
  z.string().transform((text, ctx) => {
    const bytes = parseBytes(text);
    if (bytes === undefined || bytes < min || bytes > max) {
      ctx.addIssue({ code: 'custom', message: `must be a size from ${range} (e.g. 8MiB, 512KiB)` });
      return z.NEVER;
    }
    return bytes;
  });

const positiveNumber = z.coerce.number().positive();
const intBetween = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const httpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'must be an http:// or https:// URL')
  .transform((u) => u.replace(/\/+$/, ''));

const redisUrl = z
  .string()
  .url()
  .refine((u) => /^rediss?:\/\//i.test(u), 'must be a redis:// or rediss:// URL');

interface Setting {
  /** Environment variable; undefined for flag-only settings. */
  readonly env?: string;
  /** Flag name without dashes; undefined for environment-only settings (the API key). */
  readonly flag?: string;
  readonly schema: z.ZodType;
  /** Default as text, parsed by the schema like any other value. */
  readonly default?: string;
  readonly help: string;
}

export const SETTINGS = {
  apiKey: {
    env: 'TSYNC_API_KEY',
    schema: z.string().trim().min(1, 'is empty'),
    help: 'API key sent as x-service-key (environment only, never a flag)',
  },
  baseUrl: {
    env: 'TSYNC_BASE_URL',
    flag: 'base-url',
    schema: httpUrl,
    help: 'base URL of the listing service, e.g. https://api.example.com',
  },
  db: {
    env: 'TSYNC_DB',
    flag: 'db',
    schema: z.string().trim().min(1, 'is empty'),
    default: './data/transcripts.duckdb',
    help: 'DuckDB file',
  },
  redisUrl: {
    env: 'REDIS_URL',
    flag: 'redis-url',
    schema: redisUrl,
    help: 'Redis URL (worker, redis checkpoints)',
  },
  redisPrefix: {
    env: 'TSYNC_REDIS_PREFIX',
    flag: 'redis-prefix',
    schema: z.string().regex(/^[\w.:-]+$/, 'may hold letters, digits and _.:- only'),
    default: 'tsync',
    help: 'prefix of every Redis key and queue',
  },
  logLevel: {
    env: 'TSYNC_LOG_LEVEL',
    flag: 'log-level',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    help: 'log level',
  },
  rateLimit: {
    env: 'TSYNC_RATE_LIMIT',
    flag: 'rate-limit',
    schema: positiveNumber,
    default: '20',
    help: 'client-side limit, requests per second',
  },
  pageSize: {
    env: 'TSYNC_PAGE_SIZE',
    flag: 'page-size',
    schema: intBetween(1, 1000),
    default: '100',
    help: 'most items asked for per page (fewer when records are big; the service may serve fewer)',
  },
  pageBytes: {
    env: 'TSYNC_PAGE_BYTES',
    flag: 'page-bytes',
    schema: bytesBetween(64 * 2 ** 10, 256 * 2 ** 20, '64KiB to 256MiB'),
    help: 'most JSON bytes of a page (default: from --memory, 1.3 MiB at 512MB): pages are sized to it from the first request, a longer answer is asked again smaller',
  },
  maxRecordBytes: {
    env: 'TSYNC_MAX_RECORD_BYTES',
    flag: 'max-record-bytes',
    schema: bytesBetween(2 ** 20, 200 * 2 ** 20, '1MiB to 200MiB'),
    default: '64MiB',
    help: 'most JSON bytes of one record; a bigger one fails its kind (the other still syncs)',
  },
  sliceJobs: {
    env: 'TSYNC_SLICE_JOBS',
    flag: 'slice-jobs',
    schema: intBetween(1, 1_000_000),
    help: 'jobs per backfill slice (default 4 x --page-size); keep it under a service offset cap',
  },
  maxDeleteShare: {
    env: 'TSYNC_MAX_DELETE_SHARE',
    flag: 'max-delete-share',
    schema: z.coerce.number().min(0).max(1),
    default: '0.1',
    help: "share (0..1) of a kind's stored jobs one --full run may mark deleted (always at least 10 jobs); 1 lets any share through",
  },
  concurrency: {
    env: 'TSYNC_CONCURRENCY',
    flag: 'concurrency',
    schema: intBetween(1, 16),
    default: '2',
    help: 'time slices fetched in parallel during a backfill (one writer still loads them)',
  },
  memory: {
    env: 'TSYNC_MEMORY',
    flag: 'memory',
    schema: memoryBudget,
    default: '512MB',
    help: 'memory budget of the process (MB/GB decimal, MiB/GiB binary): page size, pages in flight and DuckDB memory derive from it',
  },
  lookback: {
    env: 'TSYNC_LOOKBACK',
    flag: 'lookback',
    // 0s is meaningful: look again from the watermark itself.
    schema: durationOf({ allowZero: true }),
    default: '15m',
    help: 'how far before the watermark an incremental run looks again',
  },
  pendingMaxAge: {
    env: 'TSYNC_PENDING_MAX_AGE',
    flag: 'pending-max-age',
    schema: duration,
    default: '7d',
    help: 'queued/processing jobs younger than this are re-checked on every run',
  },
  lockWait: {
    env: 'TSYNC_LOCK_WAIT',
    flag: 'lock-wait',
    // 0s is meaningful: do not wait for a file another process holds.
    schema: durationOf({ allowZero: true }),
    default: '5s',
    help: 'how long to wait for a database file held by a running sync',
  },
  metadataEncoding: {
    env: 'TSYNC_METADATA_ENCODING',
    flag: 'metadata-encoding',
    schema: z.enum(['json', 'brackets']),
    default: 'json',
    help: 'custom_metadata filter encoding: json (custom_metadata={"k":"v"}) or brackets (custom_metadata[k]=v)',
  },
} as const satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;
type SettingValue<K extends SettingName> = z.output<(typeof SETTINGS)[K]['schema']>;
export type Settings<K extends SettingName> = { readonly [P in K]: SettingValue<P> };

export type Env = Readonly<Record<string, string | undefined>>;
export type FlagValues = Readonly<Record<string, string | boolean | string[] | undefined>>;

/**
 * Resolves the named settings from flags (first) and the environment. `required` settings without
 * a value (and without a default) are a ConfigError; others come back undefined.
 */
export function resolveSettings<R extends SettingName, O extends SettingName = never>(
  required: readonly R[],
  optional: readonly O[],
  flags: FlagValues,
  env: Env,
): Settings<R> & Partial<Settings<O>> {
  const out: Record<string, unknown> = {};
  for (const name of [...required, ...optional]) {
    const setting: Setting = SETTINGS[name];
    const fromFlag = setting.flag === undefined ? undefined : flags[setting.flag];
    const envValue = setting.env === undefined ? undefined : env[setting.env];
    const [source, text] =
      typeof fromFlag === 'string'
        ? [`--${setting.flag}`, fromFlag]
        : envValue !== undefined && envValue !== ''
          ? [setting.env ?? name, envValue]
          : [setting.flag ? `--${setting.flag}` : (setting.env ?? name), setting.default];
    if (text === undefined) {
      if ((required as readonly string[]).includes(name)) {
        const where = [setting.flag && `--${setting.flag}`, setting.env].filter(Boolean).join(' or ');
        throw new ConfigError(
          setting.env ?? `--${setting.flag}`,
          `is required; set ${where} (${setting.help})`,
        );
      }
      continue;
    }
    const parsed = setting.schema.safeParse(text);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]?.message ?? 'is invalid';
      // Never echo the key's value back, even when it is malformed.
      const shown = name === 'apiKey' ? '' : ` (got "${text}")`;
      throw new ConfigError(source, `${issue}${shown}`);
    }
    out[name] = parsed.data;
  }
  return Object.freeze(out) as Settings<R> & Partial<Settings<O>>;
}

/** The help text of a setting, for a command's --help. */
export function settingHelp(name: SettingName): string {
  const setting: Setting = SETTINGS[name];
  const def = setting.default === undefined ? '' : ` (default ${setting.default})`;
  const env = setting.env ? ` [${setting.env}]` : '';
  return `${setting.help}${def}${env}`;
}

/** `derived`: unset, and taken from other settings (`config show` fills it in). */
export type SettingSource = 'flag' | 'env' | 'default' | 'derived' | 'unset';

export interface SettingRow {
  readonly setting: SettingName;
  readonly flag: string | null;
  readonly env: string | null;
  /** The text in effect, secrets masked; null when unset. */
  readonly value: string | null;
  readonly source: SettingSource;
  /** Why the value would be refused, null when it is valid (or unset). */
  readonly problem: string | null;
}

/**
 * Every setting with the value in effect and where it came from, for `config show`. The API key is
 * never shown (only whether it is set); a password inside a URL is masked.
 */
export function describeSettings(flags: FlagValues, env: Env): SettingRow[] {
  return (Object.keys(SETTINGS) as SettingName[]).map((name) => {
    const setting: Setting = SETTINGS[name];
    const fromFlag = setting.flag === undefined ? undefined : flags[setting.flag];
    const envValue = setting.env === undefined ? undefined : env[setting.env];
    const [source, text]: [SettingSource, string | undefined] =
      typeof fromFlag === 'string'
        ? ['flag', fromFlag]
        : envValue !== undefined && envValue !== ''
          ? ['env', envValue]
          : setting.default !== undefined
            ? ['default', setting.default]
            : ['unset', undefined];
    const parsed = text === undefined ? undefined : setting.schema.safeParse(text);
    return {
      setting: name,
      flag: setting.flag ? `--${setting.flag}` : null,
      env: setting.env ?? null,
      value: text === undefined ? null : mask(name, text),
      source,
      problem: parsed && !parsed.success ? (parsed.error.issues[0]?.message ?? 'is invalid') : null,
    };
  });
}

function mask(name: SettingName, text: string): string {
  if (name === 'apiKey') return '***** (set)';
  try {
    const url = new URL(text);
    if (!url.password) return text;
    url.password = '*****';
    return url.toString();
  } catch {
    return text;
  }
}

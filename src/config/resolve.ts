/**
 * Settings resolved from flags and an environment handed in: a flag wins over its environment
 * variable, which wins over the default; a setting with none of them may be derived from others
 * (DERIVED). A bad value is a ConfigError naming the flag or variable it came from (exit code 2).
 */
import { dirname, join } from 'node:path';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { defaultSliceJobs } from '../extract/index.js';
import { planMemory } from '../memory/budget.js';
import { formatBytes } from '../util/bytes.js';
import {
  type Env,
  type FlagValues,
  type SETTINGS,
  type SettingName,
  type Settings,
  type SettingValue,
  settingOf,
} from './settings.js';

/** `derived`: unset, and taken from other settings. */
export type SettingSource = 'flag' | 'env' | 'default' | 'derived' | 'unset';

/** What was given for a setting, and where: the flag or variable an error names. */
export interface Given {
  readonly source: Exclude<SettingSource, 'derived'>;
  readonly where: string;
  /** What the schema parses: text, a switch's `true`, a repeated flag's list; undefined when unset. */
  readonly input: string | boolean | readonly string[] | undefined;
  /** The input as a person wrote it. */
  readonly text: string | undefined;
}

export function given(name: SettingName, flags: FlagValues, env: Env): Given {
  const setting = settingOf(name);
  const flag = setting.flag;
  const where = flag ? `--${flag}` : (setting.env ?? name);
  const fromFlag = flag === undefined ? undefined : flags[flag];
  if (setting.switch && fromFlag === true) return { source: 'flag', where, input: true, text: 'true' };
  if (setting.multiple && fromFlag !== undefined && typeof fromFlag !== 'boolean') {
    const list = typeof fromFlag === 'string' ? [fromFlag] : fromFlag;
    return { source: 'flag', where, input: list, text: list.join(' ') };
  }
  // A repeated flag that takes one value: the last one counts.
  const last = Array.isArray(fromFlag) ? fromFlag.at(-1) : fromFlag;
  if (typeof last === 'string') return { source: 'flag', where, input: last, text: last };
  const fromEnv = setting.env === undefined ? undefined : env[setting.env];
  if (setting.env && fromEnv !== undefined && fromEnv !== '') {
    return { source: 'env', where: setting.env, input: fromEnv, text: fromEnv };
  }
  const source = setting.default === undefined ? 'unset' : 'default';
  return { source, where, input: setting.default, text: setting.default };
}

/** The typed value of what was given, or why it is refused. */
export function parseGiven(
  name: SettingName,
  { input, text }: Given,
): { ok: true; value: unknown } | { ok: false; problem: string } {
  const setting = settingOf(name);
  const parsed = setting.schema.safeParse(input, { error: settingIssue });
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0]?.message ?? 'is invalid';
  // A secret is never echoed, even when it is malformed, nor a URL's password; a message that quotes
  // the value says it once.
  const quoted = `"${text}"`;
  const echo =
    setting.secret || text === undefined || issue.includes(quoted) ? '' : ` (got "${maskPassword(text)}")`;
  return { ok: false, problem: `${issue}${echo}` };
}

/**
 * `text` with the password of a URL in it (`scheme://user:password@`, also mistyped as `scheme:/` or
 * `scheme//`) masked: what may be shown of a value that is no secret but may carry one. Of an
 * `s3://` URL the whole part before @ is masked: a key id and its secret, or a token.
 */
export function maskPassword(text: string): string {
  return text
    .replace(/^(s3:\/\/)[^/?#\s]*@/i, '$1*****@')
    .replace(/((?:^[a-z][\w+.-]*:\/*|\/\/)[^/?#@:\s]*:)[^/?#\s]*@/i, '$1*****@');
}

interface Derivation<F extends SettingName> {
  readonly from: readonly F[];
  value(inputs: Settings<F>): unknown;
  show(value: never): string;
}

const derive = <F extends SettingName, T>(
  from: readonly F[],
  value: (inputs: Settings<F>) => T,
  show: (value: T) => string,
): Derivation<F> => ({ from, value, show: show as (value: never) => string });

/** Settings that, when unset, follow from others, as the sync and the worker take them. */
const DERIVATIONS = {
  pageBytes: derive(
    ['memory', 'concurrency'],
    ({ memory, concurrency }) => planMemory(memory, concurrency).pageBytes,
    formatBytes,
  ),
  sliceJobs: derive(['pageSize'], ({ pageSize }) => defaultSliceJobs(pageSize), String),
  reportDir: derive(['db'], ({ db }) => join(dirname(db), 'reports'), String),
};
export const DERIVED: Partial<Record<SettingName, Derivation<SettingName>>> = DERIVATIONS;

type Valued<K extends SettingName> = K extends keyof typeof DERIVATIONS
  ? K
  : (typeof SETTINGS)[K] extends { readonly default: string }
    ? K
    : never;

/** resolveSettings with every setting that has a default or a derivation required, the rest optional. */
export function resolveAll<K extends SettingName>(
  names: readonly K[],
  flags: FlagValues,
  env: Env,
): Settings<Valued<K>> & Partial<Settings<K>> {
  const valued = (name: K) => settingOf(name).default !== undefined || name in DERIVATIONS;
  const optional = names.filter((name) => !valued(name));
  return resolveSettings(names.filter(valued), optional, flags, env) as Settings<Valued<K>> &
    Partial<Settings<K>>;
}

/**
 * Resolves the named settings. Every value given is checked first, in the order named, so a bad
 * value is reported before a missing one; then an unset derived setting is derived. A `required`
 * setting without a value is a ConfigError; an `optional` one comes back undefined.
 */
export function resolveSettings<R extends SettingName, O extends SettingName = never>(
  required: readonly R[],
  optional: readonly O[],
  flags: FlagValues,
  env: Env,
): Settings<R> & Partial<Settings<O>> {
  const names: readonly SettingName[] = [...required, ...optional];
  const out: Partial<Record<SettingName, unknown>> = {};
  for (const name of names) {
    const value = given(name, flags, env);
    if (value.input === undefined) continue;
    const parsed = parseGiven(name, value);
    if (!parsed.ok) throw new ConfigError(value.where, parsed.problem);
    out[name] = parsed.value;
  }
  for (const name of names.filter((unset) => !(unset in out))) {
    const derivation = DERIVED[name];
    if (derivation) out[name] = derivation.value(resolveSettings(derivation.from, [], flags, env));
    else if ((required as readonly SettingName[]).includes(name)) throw missing(name);
  }
  return Object.freeze(out) as Settings<R> & Partial<Settings<O>>;
}

/** Refuses the first of `names` given on the command line: it applies to `applies`, not to `here`. */
export function refuseGiven(flags: FlagValues, names: readonly SettingName[], applies: string, here: string) {
  for (const name of names) {
    const flag = settingOf(name).flag;
    if (flag === undefined || flags[flag] === undefined || flags[flag] === false) continue;
    throw new ConfigError(`--${flag}`, `applies to ${applies}, not to ${here}`);
  }
}

function missing(name: SettingName): ConfigError {
  const setting = settingOf(name);
  const flag = setting.flag === undefined ? undefined : `--${setting.flag}`;
  const where = [flag, setting.env].filter(Boolean).join(' or ');
  // The help follows as what to set it to, not in parentheses: it may hold some of its own.
  return new ConfigError(setting.env ?? flag ?? name, `is required; set ${where} to the ${setting.help}`);
}

/**
 * The one spelling of an output format on every command: `--format` (each command takes one of the
 * format settings), else json with `--json`, else the setting's default (query's has none: its
 * format then comes from --out). --json beside a --format that names another format is refused.
 */
export function resolveFormat<K extends 'format' | 'reportFormat' | 'queryFormat'>(
  name: K,
  flags: FlagValues,
  env: Env,
): SettingValue<K> | (K extends 'queryFormat' ? undefined : never) {
  const { json, [name]: format } = resolveSettings(['json'], [name], flags, env);
  if (!json) return format as SettingValue<K>;
  if (flags['format'] !== undefined && format !== 'json') {
    throw new ConfigError(
      '--json',
      `is the same as --format json, and --format says ${String(format)}; give one of them`,
    );
  }
  return 'json' as SettingValue<K>;
}

/** What a value of the setting must be, for an issue its schema left in zod's own words. */
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

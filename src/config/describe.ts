/** Settings as a person reads them: a flag's line of --help, and `config show`'s rows. */
import { redisUrlProblem } from '../sync/types.js';
import { snakeCase } from '../util/snake-case.js';
import { DERIVED, given, maskPassword, parseGiven, resolveSettings, type SettingSource } from './resolve.js';
import {
  CONFIGURATION,
  type Env,
  type FlagValues,
  type SettingName,
  type SettingValue,
  settingOf,
} from './settings.js';
import { webhookSecretProblem } from './worker-settings.js';

/** The help text of a setting, for a command's --help: what it is, its default, its variable. */
export function settingHelp(name: SettingName): string {
  const setting = settingOf(name);
  const shown = setting.default !== undefined && !setting.switch;
  const def = shown ? ` (default ${setting.default})` : '';
  const env = setting.env ? ` [${setting.env}]` : '';
  return `${setting.help}${def}${env}`;
}

/** The left column of a flag's help line: `-f, --file FILE`, `--full`. */
export function flagUsage(name: SettingName): string {
  const setting = settingOf(name);
  const short = setting.short ? `-${setting.short}, ` : '';
  const value = setting.switch ? '' : ` ${setting.value ?? 'VALUE'}`;
  return `${short}--${setting.flag}${value}`;
}

/** A setting's key in `config show --json`: its flag (else its name) in snake_case, as JSON keys are. */
export function settingKey(name: SettingName): string {
  return settingOf(name).flag?.replaceAll('-', '_') ?? snakeCase(name);
}

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
 * Every setting with an environment variable: the value in effect (a secret only as set, a URL's
 * password masked), where it came from, and why it would be refused. An unset derived setting
 * shows the value it takes and what from, unless one of those would be refused (its row says why).
 */
export function describeSettings(flags: FlagValues, env: Env): SettingRow[] {
  return CONFIGURATION.map((name): SettingRow => {
    const setting = settingOf(name);
    const value = given(name, flags, env);
    const parsed = value.input === undefined ? undefined : parseGiven(name, value);
    const row: SettingRow = {
      setting: name,
      flag: setting.flag ? `--${setting.flag}` : null,
      env: setting.env ?? null,
      value: value.text === undefined ? null : setting.secret ? '***** (set)' : maskPassword(value.text),
      source: value.source,
      problem: parsed && !parsed.ok ? parsed.problem : null,
    };
    const shown = row.source === 'unset' ? (derivedRow(row, flags, env) ?? row) : row;
    if (shown.problem !== null) return shown;
    const problem = pairProblem(name, flags, env);
    return problem === undefined ? shown : { ...shown, problem };
  });
}

/**
 * Why a command refuses a setting together with another, on the row of the one to fix: REDIS_URL
 * unset with checkpoints in Redis, as a run refuses it; TSYNC_WEBHOOK_SECRET unusable with a
 * webhook port, as the worker refuses it. A refused partner says why on its own row instead.
 */
function pairProblem(name: SettingName, flags: FlagValues, env: Env): string | undefined {
  switch (name) {
    case 'redisUrl': {
      const checkpoints = validValue('checkpoints', flags, env);
      if (checkpoints === undefined) return undefined;
      return redisUrlProblem({ checkpoints, redisUrl: validValue('redisUrl', flags, env) ?? null });
    }
    case 'webhookSecret':
      return webhookSecretProblem(
        validValue('webhookPort', flags, env),
        validValue('webhookSecret', flags, env),
      );
    default:
      return undefined;
  }
}

/** The typed value of a setting as given; undefined when unset or refused. */
function validValue<K extends SettingName>(
  name: K,
  flags: FlagValues,
  env: Env,
): SettingValue<K> | undefined {
  const value = given(name, flags, env);
  if (value.input === undefined) return undefined;
  const parsed = parseGiven(name, value);
  return parsed.ok ? (parsed.value as SettingValue<K>) : undefined;
}

function derivedRow(row: SettingRow, flags: FlagValues, env: Env): SettingRow | undefined {
  const derivation = DERIVED[row.setting];
  if (!derivation) return undefined;
  const inputs = derivation.from.map((name) => ({ name, value: given(name, flags, env) }));
  const valid = inputs.every(({ name, value }) => value.input !== undefined && parseGiven(name, value).ok);
  if (!valid) return undefined;
  const shown = derivation.show(derivation.value(resolveSettings(derivation.from, [], flags, env)) as never);
  const from = inputs.map(({ value }) => `${value.where} ${value.text}`).join(', ');
  return { ...row, value: `${shown} (from ${from})`, source: 'derived' };
}

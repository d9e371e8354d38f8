/**
 * The one spelling of an output format on every command: `--format` (table and json everywhere;
 * csv, html or parquet where a command writes them), with `--json` kept as `--format json` so that
 * scripts written against it keep working. Each command takes one of the format settings of the
 * table and `json`; this resolves the pair. A flag that does nothing for the format chosen (`--bom`
 * with JSON) is refused like any flag given where it does not apply (refuseGiven, resolve.ts).
 */
import { ConfigError } from '../errors.js';
import { resolveSettings } from './resolve.js';
import type { Env, FlagValues, SettingValue } from './settings.js';

/** The settings of an output format: `format` (table|json), and report's and query's own. */
export type FormatSetting = 'format' | 'reportFormat' | 'queryFormat';

/**
 * The format a command line asks for: --format, else json with --json, else the setting's default
 * (query's has none: undefined, its format then comes from --out). --json beside a --format that
 * names another format is refused.
 */
export function resolveFormat<K extends FormatSetting>(
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

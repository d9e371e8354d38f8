/**
 * `--group-by`: what splits a period's billing into rows. `kind`, `model` (request_params.model) or
 * `metadata.<key>` (a key of the job's custom_metadata, how customers tag jobs), up to three, comma
 * separated. Each key is one column of the report, named as given; a job without the key is in the
 * group `(none)`.
 */
import { ConfigError } from '../errors.js';

/** At most this many keys: the report query has three group slots. */
const MAX_GROUP_KEYS = 3;
export const NONE_GROUP = '(none)';

export type GroupKey = 'kind' | 'model' | `metadata.${string}`;

/** The keys `text` names, or a ConfigError naming `setting`. */
export function parseGroupBy(text: string, setting: string): readonly GroupKey[] {
  const keys = text.split(',').map((part) => part.trim());
  if (keys.length > MAX_GROUP_KEYS)
    throw new ConfigError(setting, `at most ${MAX_GROUP_KEYS} keys, got ${keys.length} ("${text}")`);
  const seen = new Set<string>();
  return keys.map((key): GroupKey => {
    if (seen.has(key)) throw new ConfigError(setting, `"${key}" is given twice`);
    seen.add(key);
    if (key === 'kind' || key === 'model') return key;
    if (key.startsWith('metadata.') && key.length > 'metadata.'.length) return key as `metadata.${string}`;
    throw new ConfigError(
      setting,
      `"${key}" is not one of kind, model, metadata.<key> (e.g. metadata.customer)`,
    );
  });
}

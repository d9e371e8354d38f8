/** `--window` of `sync --full` and `--recent-window` of the worker: a duration with its unit. */
import type { FlagValues } from '../config/settings.js';
import { ConfigError } from '../errors.js';
import { parseDuration } from '../util/duration.js';
import { stringFlag } from './command.js';

/** ms, or undefined when the flag is absent (and there is no fallback). A bare number is refused: `7` days or seconds? */
export function windowFlag(flags: FlagValues, name: string, fallback?: string): number | undefined {
  const text = stringFlag(flags, name) ?? fallback;
  if (text === undefined) return undefined;
  const ms = /[a-z]\s*$/i.test(text) ? parseDuration(text) : undefined;
  if (ms === undefined || ms <= 0)
    throw new ConfigError(`--${name}`, `"${text}" is not a duration with its unit (e.g. 7d, 36h)`);
  return ms;
}

/** Flags of the worker-related commands that src/config.ts does not know: durations and ports. */

import type { FlagValues } from '../config/settings.js';
import { ConfigError } from '../errors.js';
import { parseDurationStrict } from '../util/duration.js';
import { stringFlag } from './command.js';

/** ms of a positive duration with a unit. */
export function durationFlag(flags: FlagValues, name: string, fallback: string): number {
  const parsed = parseDurationStrict(stringFlag(flags, name) ?? fallback);
  if (!parsed.ok) throw new ConfigError(`--${name}`, parsed.problem);
  return parsed.ms;
}

export function portFlag(flags: FlagValues, name: string, fallback: number): number {
  const value = stringFlag(flags, name);
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) {
    throw new ConfigError(`--${name}`, `"${value}" is not a port (0-65535; 0 picks a free one)`);
  }
  return port;
}

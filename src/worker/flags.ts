/** Flags of the worker-related commands that src/config.ts does not know: durations and ports. */

import { stringFlag } from '../cli/command.js';
import type { FlagValues } from '../config.js';
import { ConfigError } from '../errors.js';
import { parseDuration } from '../util/duration.js';

/** ms */
export function durationFlag(flags: FlagValues, name: string, fallback: string): number {
  const value = stringFlag(flags, name) ?? fallback;
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0)
    throw new ConfigError(`--${name}`, `"${value}" is not a positive duration (e.g. 10s, 5m, 1h)`);
  return ms;
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

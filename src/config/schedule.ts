/** A schedule setting (`--every`, ...): a duration (`5m`) or a 5-field cron expression, in UTC. */
import { ConfigError } from '../errors.js';
import { parseDurationStrict } from '../util/duration.js';

export type Schedule = { readonly every: number } | { readonly pattern: string };

/** Shortest accepted interval, ms: a run takes at least a request per kind. */
const MIN_EVERY_MS = 1_000;
const CRON_FIELD = /^[\d*/,\-A-Za-z?LW#]+$/;

/** The schedule `text` says, or a ConfigError naming `setting`. */
export function parseSchedule(text: string, setting: string): Schedule {
  const fields = text.trim().split(/\s+/);
  if (fields.length === 5 && fields.every((f) => CRON_FIELD.test(f)))
    return Object.freeze({ pattern: fields.join(' ') });
  const parsed = parseDurationStrict(text);
  if (!parsed.ok) {
    // A number without a unit, or a negative one, gets the precise reason; anything else both forms.
    const problem = /must be|no unit/.test(parsed.problem)
      ? parsed.problem
      : `"${text}" is neither a duration (5m, 1h, 1d) nor a 5-field cron expression`;
    throw new ConfigError(setting, problem);
  }
  if (parsed.ms < MIN_EVERY_MS) throw new ConfigError(setting, `"${text}" is shorter than 1s`);
  return Object.freeze({ every: parsed.ms });
}

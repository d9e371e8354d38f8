/**
 * Durations with a unit (`500ms`, `30s`, `15m`, `2h`, `7d`, `1w`) in ms. A bare number but 0 is refused:
 * `--full-every 5` would reconcile every 5 s for a user who meant minutes.
 */
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** The longest duration taken: an instant this far before now or after it is still a date. */
const MAX_DURATION = '36500d';
const MAX_DURATION_MS = 36_500 * UNIT_MS.d;

const DURATION_EXAMPLES = 'e.g. 500ms, 30s, 15m, 2h, 7d';

export type DurationParse =
  | { readonly ok: true; readonly ms: number }
  | { readonly ok: false; readonly problem: string };

/** ms, or why the text is not a positive duration with a unit. */
export function parseDurationStrict(text: string, options: { allowZero?: boolean } = {}): DurationParse {
  const match = /^\s*(-?\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?\s*$/.exec(text);
  if (!match) return { ok: false, problem: `"${text}" is not a duration (${DURATION_EXAMPLES})` };
  const value = Number(match[1]);
  // Zero is zero in any unit: a bare 0 needs none.
  if (match[2] === undefined && value !== 0) {
    return { ok: false, problem: `"${text}" has no unit; write it with one (${DURATION_EXAMPLES})` };
  }
  if (value < 0 || (value === 0 && !options.allowZero)) {
    return {
      ok: false,
      problem: `"${text}" must be ${options.allowZero ? 'zero or more' : 'more than zero'}`,
    };
  }
  const ms = Math.round(value * UNIT_MS[(match[2] ?? 'ms') as keyof typeof UNIT_MS]);
  if (ms > MAX_DURATION_MS) {
    return { ok: false, problem: `"${text}" must be at most ${MAX_DURATION} (100 years)` };
  }
  return { ok: true, ms };
}

/**
 * A duration setting as a person writes it: in the largest unit that holds it exactly (`7d`, `15m`,
 * `90m`, `500ms`), so a message echoes `--pending-max-age 7d` as `7d`, not `168h0m`.
 */
export function formatDurationSetting(ms: number): string {
  if (ms === 0) return '0s';
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms >= UNIT_MS[unit] && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${Math.round(ms)}ms`;
}

/** A measured time span for a person (`1.2s`, `3m4s`, `1h10m`), rounded. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)}s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1_000)}s`;
  return `${Math.floor(ms / 3_600_000)}h${Math.round((ms % 3_600_000) / 60_000)}m`;
}

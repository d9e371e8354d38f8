/**
 * ISO 8601 instants of a record into TIMESTAMPTZ values, in microseconds, without losing the
 * sub-millisecond digits that `Date` would drop. Part of mapping records to rows (a bigint cell,
 * which the store turns into DuckDB's value at append time); the loader stamps `synced_at` with it too.
 */

const INSTANT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Microseconds since the epoch of an ISO 8601 instant (validated upstream by the record schema).
 * Digits past the microsecond are truncated, as DuckDB's own TIMESTAMPTZ does.
 */
export function instantMicros(iso: string): bigint {
  const match = INSTANT.exec(iso);
  if (!match) {
    const ms = Date.parse(iso);
    if (Number.isNaN(ms)) throw new RangeError(`not an ISO 8601 instant: ${iso}`);
    return BigInt(ms) * 1000n;
  }
  const seconds = Date.parse(`${match[1]}${normaliseOffset(match[3] ?? 'Z')}`);
  const fraction = (match[2] ?? '').slice(0, 6).padEnd(6, '0');
  return BigInt(seconds) * 1000n + BigInt(fraction);
}

function normaliseOffset(offset: string): string {
  if (offset.toUpperCase() === 'Z') return 'Z';
  return offset.includes(':') ? offset : `${offset.slice(0, 3)}:${offset.slice(3)}`;
}

/**
 * Exact arithmetic on decimal text (DuckDB's spelling of a DECIMAL: `-12.50`), in scaled bigints,
 * for what the formats do with exact figures: show them with a column's fixed decimals, and add
 * rows up to compare them with a total. No value passes through a double.
 */
import { ExactNumber } from '../../util/json-writer.js';

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

interface Scaled {
  /** The value times 10^scale. */
  readonly units: bigint;
  readonly scale: number;
}

function parse(text: string): Scaled | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = ''] = match;
  const units = BigInt(`${whole}${fraction}`);
  return { units: sign === '-' ? -units : units, scale: fraction.length };
}

/** `value` at `scale` digits, rounded half away from zero when it had more. */
function rescale(value: Scaled, scale: number): bigint {
  if (scale >= value.scale) return value.units * 10n ** BigInt(scale - value.scale);
  const divisor = 10n ** BigInt(value.scale - scale);
  const half = divisor / 2n;
  return value.units < 0n ? -((-value.units + half) / divisor) : (value.units + half) / divisor;
}

function format(units: bigint, scale: number): string {
  const sign = units < 0n ? '-' : '';
  const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
  if (scale === 0) return `${sign}${digits}`;
  return `${sign}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/**
 * A number's text with exactly `decimals` digits after the point: an exact number's digits padded
 * or rounded half away from zero, a double through toFixed (it is a double already).
 */
export function fixedDecimals(value: number | ExactNumber, decimals: number): string {
  if (typeof value === 'number') return Number.isFinite(value) ? value.toFixed(decimals) : String(value);
  const scaled = parse(value.text);
  return scaled ? format(rescale(scaled, decimals), decimals) : value.text;
}

/** The exact sum of decimal numbers, at the largest scale among them. */
export function sumExact(values: readonly ExactNumber[]): ExactNumber {
  const scaled = values.map((value) => parse(value.text));
  if (scaled.some((s) => s === undefined)) throw new TypeError('sumExact takes plain decimals only');
  const parts = scaled as Scaled[];
  const scale = parts.reduce((most, p) => Math.max(most, p.scale), 0);
  const total = parts.reduce((sum, p) => sum + rescale(p, scale), 0n);
  return new ExactNumber(format(total, scale));
}

/** Whether two decimal numbers are the same value (1.50 and 1.5 are). */
export function sameExact(a: ExactNumber, b: ExactNumber): boolean {
  const [x, y] = [parse(a.text), parse(b.text)];
  if (!x || !y) return a.text === b.text;
  const scale = Math.max(x.scale, y.scale);
  return rescale(x, scale) === rescale(y, scale);
}

/** The decimal's text without the zeros that end its fraction: 1.500000 -> 1.5, 2.000 -> 2. */
export function trimmedDecimal(value: ExactNumber): string {
  return value.text.includes('.') ? value.text.replace(/\.?0+$/, '') : value.text;
}

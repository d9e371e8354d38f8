/** Every JSON the CLI prints has snake_case keys, as the SQL tables do; internal types stay camelCase. */
import { writeJson } from './json-writer.js';

export function snakeCase(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/**
 * `value` with every key of its plain objects in snake_case, recursively, but under the keys in
 * `verbatim` (a raw record keeps the service's keys); other objects (Date, exact numbers) as they are.
 */
export function snakeKeys(value: unknown, verbatim: readonly string[] = []): unknown {
  if (Array.isArray(value)) return value.map((item) => snakeKeys(item, verbatim));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[snakeCase(key)] = verbatim.includes(key) ? inner : snakeKeys(inner, verbatim);
  }
  return out;
}

/** One line of JSON with snake_case keys, numbers exact (src/util/json-writer.ts). */
export function jsonLine(value: unknown, verbatim: readonly string[] = []): string {
  return `${writeJson(snakeKeys(value, verbatim))}\n`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

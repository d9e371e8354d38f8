/**
 * The list query of spec section 4, parsed from a URL's search params, and the filter it
 * implies. Arrays are accepted in the three encodings clients use (`status=a&status=b`,
 * `status[]=a`, `status=a,b`); custom_metadata as a JSON object or as `custom_metadata[key]=value`.
 * Invalid values produce validation errors (HTTP 400), never a silent default.
 */
import { JOB_KINDS, JOB_STATUSES, type JobKind, type JobStatus } from './types.js';

export const LIST_PATHS = {
  '/v2/transcription': 'transcription',
  '/v2/pre-recorded': 'pre-recorded',
  '/v2/live': 'live',
} as const;
export type ListName = (typeof LIST_PATHS)[keyof typeof LIST_PATHS];

export interface ListQuery {
  readonly offset: number;
  /** The limit served: the one asked for (default 20), capped. */
  readonly limit: number;
  readonly statuses: readonly JobStatus[] | null;
  readonly kinds: readonly JobKind[] | null;
  /** created_at within [from, until), ms since the epoch, as `date`, `after_date` and `before_date` bound it. */
  readonly from: number;
  readonly until: number;
  readonly metadata: Readonly<Record<string, string>> | null;
}

export type ParsedQuery =
  | { readonly ok: true; readonly query: ListQuery }
  | { readonly ok: false; readonly errors: string[] };

const DEFAULT_LIMIT = 20;
const DAY_MS = 86_400_000;

export function parseListQuery(params: URLSearchParams, list: ListName, limitCap: number): ParsedQuery {
  // Each is checked in this order, its errors in the answer's order.
  const errors: string[] = [];
  const offset = integer(params.get('offset'), 0, 'offset', errors);
  const limit = Math.min(integer(params.get('limit'), DEFAULT_LIMIT, 'limit', errors, 1), limitCap);
  const statuses = enumList(params, 'status', JOB_STATUSES, errors);
  const kinds = list === 'transcription' ? enumList(params, 'kind', JOB_KINDS, errors) : [list];
  const [dayFrom, dayUntil] = day(params.get('date'), errors);
  const before = instant(params.get('before_date'), 'before_date', errors, Number.POSITIVE_INFINITY);
  const after = instant(params.get('after_date'), 'after_date', errors, Number.NEGATIVE_INFINITY);
  // Time values are whole ms: the first after an exclusive `after` is after + 1.
  const from = Math.max(dayFrom, after + 1);
  const until = Math.min(dayUntil, before);
  const query = { offset, limit, statuses, kinds, from, until, metadata: metadata(params, errors) };
  return errors.length > 0 ? { ok: false, errors } : { ok: true, query };
}

/** Whether a record's custom_metadata holds every key of the filter, values compared as text. */
export function metadataMatches(own: unknown, wanted: Readonly<Record<string, string>>): boolean {
  if (typeof own !== 'object' || own === null) return false;
  for (const [key, expected] of Object.entries(wanted)) {
    if (asText((own as Record<string, unknown>)[key]) !== expected) return false;
  }
  return true;
}

function integer(text: string | null, fallback: number, name: string, errors: string[], min = 0): number {
  if (text === null) return fallback;
  if (!/^\d+$/.test(text.trim()) || Number(text) < min) {
    errors.push(`${name} must be an integer not less than ${min}`);
    return fallback;
  }
  return Number(text);
}

function enumList<T extends string>(
  params: URLSearchParams,
  name: string,
  allowed: readonly T[],
  errors: string[],
): T[] | null {
  const values: string[] = [];
  for (const [key, value] of params) {
    if (key === name || key === `${name}[]` || new RegExp(`^${name}\\[\\d+\\]$`).test(key)) {
      for (const v of value.split(',')) if (v.trim() !== '') values.push(v.trim());
    }
  }
  if (values.length === 0) return null;
  if (values.some((v) => !(allowed as readonly string[]).includes(v))) {
    errors.push(`each value in ${name} must be one of the following values: ${allowed.join(', ')}`);
    return null;
  }
  return [...new Set(values)] as T[];
}

/** The day's [from, until), ms; unbounded when absent. */
function day(text: string | null, errors: string[]): [number, number] {
  const unbounded: [number, number] = [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
  if (text === null) return unbounded;
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00.000Z`) : Number.NaN;
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text) {
    errors.push('date must be a date in the YYYY-MM-DD form');
    return unbounded;
  }
  return [ms, ms + DAY_MS];
}

function instant(text: string | null, name: string, errors: string[], fallback: number): number {
  if (text === null) return fallback;
  const ms = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) {
    errors.push(`${name} must be a valid ISO 8601 date string`);
    return fallback;
  }
  return ms;
}

function metadata(params: URLSearchParams, errors: string[]): Record<string, string> | null {
  const out: Record<string, string> = {};
  let given = false;
  for (const [key, value] of params) {
    const bracket = /^custom_metadata\[(.+)\]$/.exec(key);
    if (bracket?.[1] !== undefined) {
      out[bracket[1]] = value;
      given = true;
    } else if (key === 'custom_metadata') {
      const parsed = parseObject(value);
      if (!parsed) {
        errors.push('custom_metadata must be a JSON object');
        continue;
      }
      for (const [k, v] of Object.entries(parsed)) out[k] = asText(v) ?? 'null';
      given = true;
    }
  }
  return given ? out : null;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Metadata values compare as text: 1 matches "1", true matches "true". */
function asText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (value === null) return 'null';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

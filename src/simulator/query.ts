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
  /** created_at bounds in ms since the epoch: [from, until) for `date`, exclusive for before/after. */
  readonly day: { readonly from: number; readonly until: number } | null;
  readonly before: number | null;
  readonly after: number | null;
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
  const query: ListQuery = {
    offset: integer(params.get('offset'), 0, 'offset', errors),
    limit: Math.min(integer(params.get('limit'), DEFAULT_LIMIT, 'limit', errors, 1), limitCap),
    statuses: enumList(params, 'status', JOB_STATUSES, errors),
    kinds: list === 'transcription' ? enumList(params, 'kind', JOB_KINDS, errors) : [list],
    day: day(params.get('date'), errors),
    before: instant(params.get('before_date'), 'before_date', errors),
    after: instant(params.get('after_date'), 'after_date', errors),
    metadata: metadata(params, errors),
  };
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

function day(text: string | null, errors: string[]): ListQuery['day'] {
  if (text === null) return null;
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00.000Z`) : Number.NaN;
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text) {
    errors.push('date must be a date in the YYYY-MM-DD form');
    return null;
  }
  return { from: ms, until: ms + DAY_MS };
}

function instant(text: string | null, name: string, errors: string[]): number | null {
  if (text === null) return null;
  const ms = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) {
    errors.push(`${name} must be a valid ISO 8601 date string`);
    return null;
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

/**
 * Turns list filters into a query string, after checking them, so a bad filter is a ConfigError
 * before any request leaves. Arrays go as repeated keys (`status=done&status=error`), as the
 * official SDK sends them; custom_metadata is not sent (a sync mirrors every job).
 */
import { ConfigError } from '../errors.js';
import { JOB_KINDS, JOB_STATUSES, LIST_NAMES, type ListName } from '../kinds.js';
import type { ListParams } from './client-options.js';

/** The spec's default page size. */
export const DEFAULT_LIMIT = 20;

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
// An instant must say its offset: a local time without one would depend on the machine's zone.
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

function checkInteger(setting: string, value: number | undefined, min: number): void {
  if (value === undefined) return;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new ConfigError(setting, `must be an integer >= ${min} (got ${String(value)})`);
  }
}

function checkDateOnly(value: string): void {
  const match = DATE_ONLY.exec(value);
  const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
  const date = new Date(Date.UTC(year, month - 1, day));
  const real = match !== null && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  if (!real) throw new ConfigError('date', `must be a calendar date YYYY-MM-DD (got "${value}")`);
}

/** The instant of a before/after bound, or a ConfigError naming the parameter. */
function toInstant(setting: string, value: Date | string): Date {
  const date =
    value instanceof Date ? value : ISO_INSTANT.test(value) ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) {
    const shown = value instanceof Date ? 'an invalid Date' : `"${value}"`;
    throw new ConfigError(
      setting,
      `must be a Date or an ISO 8601 instant such as 2024-01-31T12:00:00Z (got ${shown})`,
    );
  }
  return date;
}

function checkMembers(
  setting: string,
  values: readonly string[] | undefined,
  allowed: readonly string[],
): void {
  for (const value of values ?? []) {
    if (!allowed.includes(value)) {
      throw new ConfigError(setting, `unknown value "${value}"; allowed: ${allowed.join(', ')}`);
    }
  }
}

/** Throws a ConfigError naming the first bad filter. */
export function validateListParams(list: ListName, params: ListParams): void {
  if (!LIST_NAMES.includes(list)) {
    throw new ConfigError('list', `unknown list "${String(list)}"; allowed: ${LIST_NAMES.join(', ')}`);
  }
  checkInteger('offset', params.offset, 0);
  checkInteger('limit', params.limit, 1);
  if (params.date !== undefined) checkDateOnly(params.date);
  if (params.beforeDate !== undefined) toInstant('before_date', params.beforeDate);
  if (params.afterDate !== undefined) toInstant('after_date', params.afterDate);
  checkMembers('status', params.status, JOB_STATUSES);
  if (params.kind !== undefined && params.kind.length > 0) {
    if (list !== 'transcription') {
      throw new ConfigError(
        'kind',
        `is accepted on /v2/transcription only, not on /v2/${list} (which lists one kind)`,
      );
    }
    checkMembers('kind', params.kind, JOB_KINDS);
  }
}

/** The query of one list request; offset and limit always sent (defaults 0 and 20), whatever the server's. */
export function buildQuery(list: ListName, params: ListParams): URLSearchParams {
  validateListParams(list, params);
  const query = new URLSearchParams();
  query.set('offset', String(params.offset ?? 0));
  query.set('limit', String(params.limit ?? DEFAULT_LIMIT));
  for (const status of params.status ?? []) query.append('status', status);
  if (params.date !== undefined) query.set('date', params.date);
  if (params.beforeDate !== undefined)
    query.set('before_date', toInstant('before_date', params.beforeDate).toISOString());
  if (params.afterDate !== undefined)
    query.set('after_date', toInstant('after_date', params.afterDate).toISOString());
  for (const kind of params.kind ?? []) query.append('kind', kind);
  return query;
}

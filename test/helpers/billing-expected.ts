/**
 * Billing figures computed straight from the simulator's JSON records, never from the SQL under
 * test: periods with their own calendar code (ISO weeks by the Thursday rule), seconds summed as
 * integer microseconds (bigint), hours and money rounded half up once from those sums.
 */
import type { JobRecord } from '../../src/simulator/index.js';

type Json = Record<string, unknown>;
export type Unit = 'day' | 'week' | 'month' | 'quarter' | 'year';

export interface ExpectedQuery {
  readonly by: Unit;
  readonly date?: 'created' | 'completed';
  readonly groupBy?: readonly string[];
  readonly kind?: string;
  /** ISO instants, [from, before). */
  readonly from?: string;
  readonly before?: string;
  readonly prices?: {
    readonly per_hour: Record<string, number>;
    readonly models?: Record<string, Record<string, number>>;
  };
}

export interface ExpectedSums {
  jobs: number;
  /** Sum of billing_time in microseconds. */
  micro: bigint;
  /** Sum of billing_time microseconds times price in millionths. */
  priced: bigint;
}

/** The UTC period label of an instant. */
export function labelOf(by: Unit, at: Date): string {
  const iso = at.toISOString();
  if (by === 'day') return iso.slice(0, 10);
  if (by === 'month') return iso.slice(0, 7);
  if (by === 'year') return iso.slice(0, 4);
  if (by === 'quarter') return `${iso.slice(0, 4)}-Q${Math.ceil((at.getUTCMonth() + 1) / 3)}`;
  // ISO week: the week's Thursday decides the year; week 1 holds January's first Thursday.
  const t = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  const weekday = t.getUTCDay() === 0 ? 7 : t.getUTCDay();
  t.setUTCDate(t.getUTCDate() + 4 - weekday);
  const yearStart = Date.UTC(t.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((t.getTime() - yearStart) / 86_400_000 + 1) / 7);
  return `${t.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}

/** Every label met by [from, before), stepping a day at a time. */
export function labelsBetween(by: Unit, from: string, before: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(from); t < Date.parse(before); t += 86_400_000) {
    const label = labelOf(by, new Date(t));
    if (out.at(-1) !== label) out.push(label);
  }
  return out;
}

export function groupValue(record: JobRecord, key: string): string {
  if (key === 'kind') return String(record['kind']);
  if (key === 'model') {
    const model = (record['request_params'] as Json | null | undefined)?.['model'];
    return typeof model === 'string' ? model : '(none)';
  }
  const value = (record['custom_metadata'] as Json | null | undefined)?.[key.slice('metadata.'.length)];
  return value === undefined || value === null ? '(none)' : String(value);
}

export function billingTime(record: JobRecord): number | undefined {
  const value = ((record['result'] as Json | null)?.['metadata'] as Json | undefined)?.['billing_time'];
  return record['status'] === 'done' && typeof value === 'number' ? value : undefined;
}

export function micros(seconds: number): bigint {
  return BigInt(Math.round(seconds * 1e6));
}

function priceOf(record: JobRecord, prices: NonNullable<ExpectedQuery['prices']>): bigint {
  const kind = String(record['kind']);
  const model = groupValue(record, 'model');
  const price = prices.models?.[model]?.[kind] ?? prices.per_hour[kind];
  if (price === undefined) throw new Error(`no price for ${kind} ${model}`);
  return BigInt(Math.round(price * 1e6));
}

/** Sums per JSON key [period, ...group values] of the billed records the query covers. */
export function expectedSums(records: readonly JobRecord[], query: ExpectedQuery): Map<string, ExpectedSums> {
  const out = new Map<string, ExpectedSums>();
  for (const record of records) {
    const seconds = billingTime(record);
    if (seconds === undefined) continue;
    if (query.kind && record['kind'] !== query.kind) continue;
    const atText = record[query.date === 'completed' ? 'completed_at' : 'created_at'];
    if (typeof atText !== 'string') continue;
    const at = new Date(atText);
    if (query.from && at < new Date(query.from)) continue;
    if (query.before && at >= new Date(query.before)) continue;
    const key = JSON.stringify([
      labelOf(query.by, at),
      ...(query.groupBy ?? ['kind']).map((g) => groupValue(record, g)),
    ]);
    const sums = out.get(key) ?? { jobs: 0, micro: 0n, priced: 0n };
    sums.jobs += 1;
    sums.micro += micros(seconds);
    if (query.prices) sums.priced += micros(seconds) * priceOf(record, query.prices);
    out.set(key, sums);
  }
  return out;
}

export function total(sums: Iterable<ExpectedSums>): ExpectedSums {
  const all = { jobs: 0, micro: 0n, priced: 0n };
  for (const s of sums) {
    all.jobs += s.jobs;
    all.micro += s.micro;
    all.priced += s.priced;
  }
  return all;
}

/** n / d rounded half up, for n >= 0. */
function divideHalfUp(n: bigint, d: bigint): bigint {
  return (2n * n + d) / (2n * d);
}

/** billed_seconds: microseconds to milliseconds, once. */
export function secondsFigure(micro: bigint): number {
  return Number(divideHalfUp(micro, 1000n)) / 1000;
}

/** billed_hours: microseconds / 3600 to the micro-hour, once. */
export function hoursFigure(micro: bigint): number {
  return Number(divideHalfUp(micro, 3600n)) / 1e6;
}

/** cost: (microseconds x price millionths) / 1e12 seconds-money / 3600 to the cent, once. */
export function costFigure(priced: bigint): number {
  return Number(divideHalfUp(priced, 36n * 10n ** 12n)) / 100;
}

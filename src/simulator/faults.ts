/**
 * Fault scheduling: faults for chosen requests (a picker), faults injected for the next requests
 * (in order, one each) and seeded random faults. A fault applies to one list request that would
 * otherwise have been answered 200 (after the key and the parameters were accepted), so probes of
 * 401/400/404 never consume one.
 */
import { obj } from './records/modules.js';
import { Rng } from './rng.js';
import { FAULT_KINDS, type FaultKind, type FaultPicker, type FaultRequest, type FaultRule } from './types.js';

/** The faults a simulator serves (Simulator.faults): tests set them while it runs. */
export class Faults {
  /** Retry-After header of a 429, default '1' (seconds); may be set to an HTTP date. */
  retryAfter = '1';
  /** Retry-After header of a 503, default null: none. */
  retryAfterOn503: string | null = null;
  /** Total delay of a 'slow' body, ms, default 2000; the body is sent in pieces over it. */
  slowMs = 2_000;
  private readonly queue: FaultKind[] = [];
  private picker: FaultPicker | null = null;
  private random: { readonly rule: FaultRule; readonly rng: Rng } | null = null;
  /** Draws that shape a fault (which record to break, and how), seeded so runs replay. */
  readonly shapeRng: Rng;

  constructor(seed: number, rule?: FaultRule | null) {
    this.shapeRng = new Rng(seed ^ 0x5eed);
    this.setRandom(rule ?? null);
  }

  /** The next list requests get these faults, in order, one each. */
  inject(...kinds: FaultKind[]): void {
    for (const kind of kinds) assertKind(kind);
    this.queue.push(...kinds);
  }

  /** Seeded random faults on every list request; null stops them. */
  setRandom(rule: FaultRule | null): void {
    if (rule) {
      if (!(rule.rate >= 0 && rule.rate <= 1))
        throw new RangeError(`fault rate must be within 0..1 (got ${rule.rate})`);
      for (const kind of rule.kinds) assertKind(kind);
    }
    this.random = rule && rule.kinds.length > 0 ? { rule, rng: new Rng(rule.seed ?? 1) } : null;
  }

  /** Faults for chosen requests: `picker` sees each list request first; null removes it. */
  pick(picker: FaultPicker | null): void {
    this.picker = picker;
  }

  /** Drops injected faults and random faults. */
  clear(): void {
    this.queue.length = 0;
    this.random = null;
    this.picker = null;
  }

  /** The headers of a status fault's answer: a 429's Retry-After, a 503's when it is set. */
  headersOf(fault: FaultKind): Record<string, string> {
    const retryAfter = fault === '429' ? this.retryAfter : fault === '503' ? this.retryAfterOn503 : null;
    return retryAfter === null ? {} : { 'retry-after': retryAfter };
  }

  /** The fault of the request in hand, if any: the picker's first, an injected one next, else a random draw. */
  take(request: FaultRequest): FaultKind | undefined {
    const picked = this.picker?.(request);
    if (picked !== undefined) {
      assertKind(picked);
      return picked;
    }
    const injected = this.queue.shift();
    if (injected) return injected;
    if (!this.random) return undefined;
    const { rule, rng } = this.random;
    return rng.next() < rule.rate ? rng.pick(rule.kinds) : undefined;
  }
}

function assertKind(kind: string): void {
  if (!(FAULT_KINDS as readonly string[]).includes(kind)) {
    throw new RangeError(`unknown fault kind "${kind}"; one of ${FAULT_KINDS.join(', ')}`);
  }
}

const BREAKAGES = [
  'missing-id',
  'created-at-not-a-date',
  'unknown-status',
  'utterances-not-an-array',
] as const;

/** A copy of the record's JSON with one thing broken (chosen by the seeded draw); the stored record is untouched. */
export function breakRecord(json: Buffer, rng: Rng): Buffer {
  const record = JSON.parse(json.toString()) as Record<string, unknown>;
  const breakage = rng.pick(BREAKAGES);
  if (breakage === 'missing-id') delete record['id'];
  if (breakage === 'created-at-not-a-date') record['created_at'] = 'yesterday at noon';
  if (breakage === 'unknown-status') record['status'] = 'finished';
  if (breakage === 'utterances-not-an-array') {
    const result = obj(record['result']);
    const transcription = { ...obj(result['transcription']), utterances: 'see attachment' };
    record['result'] = { ...result, transcription };
  }
  return Buffer.from(JSON.stringify(record));
}

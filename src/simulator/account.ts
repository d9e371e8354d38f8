/**
 * A generated account: a seeded sequence of jobs, oldest first, in which job i is a pure function
 * of (seed, i). Nothing is stored per job: its created_at falls in its slot of the timeline, its
 * kind follows the account's share of each kind, its id encodes i (so an id finds its job), and
 * its status, custom_metadata and transcript size come from its own random stream. So the first N
 * jobs of a longer account are the same jobs, byte for byte, and any job can be built alone.
 *
 * Ties: 3% of jobs share the created_at of the job before (ordering ties occur), and then get an
 * id that sorts after it, so a list's order (created_at, then id, descending) is the jobs' order
 * reversed whenever slots are 1 ms or longer.
 */
import { buildJob, drawMetadataCode, metadataOf, moveJob, STATUS_MIX } from './records/job.js';
import { hash32, Rng, unit } from './rng.js';
import type { GenerateOptions, JobKind, JobRecord, JobStatus } from './types.js';

/** Jobs from `firstIndex` on: job firstIndex + k falls in [startMs + k*gapMs, startMs + (k+1)*gapMs). */
export interface Segment {
  readonly firstIndex: number;
  readonly startMs: number;
  /** Mean ms between two jobs (the slot's length). */
  readonly gapMs: number;
}

/** How the account lives once it grows (growth.ts): queued and processing jobs settle within settleMs. */
export interface Lifecycle {
  /** Jobs from here on arrive as time passes, born queued; the jobs pending before settle from its start. */
  readonly arrivals: Segment;
  /** Longest time from queued to done or error, ms. */
  readonly settleMs: number;
  /** Share of arrivals that each delete one older job (any age), 0..1. */
  readonly deleteShare: number;
}

export interface AccountSpec {
  readonly seed: number;
  /** Job i is pre-recorded when ceil((i+1)*p/of) > ceil(i*p/of): exactly ceil(n*p/of) of the first n. */
  readonly kinds: { readonly preRecorded: number; readonly of: number };
  readonly utterancesPerJob: number;
  readonly wordsPerUtterance: number;
  /** The history: its first segment starts at index 0. */
  readonly history: Segment;
  readonly lifecycle?: Lifecycle;
  readonly padding?: GenerateOptions['recordPadding'];
}

const TIE_RATE = 0.03;

// Lanes of a job's streams and hashes: each draw has its own, so adding one never shifts another.
const LANE_HEAD = 0;
const LANE_BODY = 1;
const LANE_LATER = 2;
const LANE_SLOT = 3;
const LANE_TIE = 4;
const LANE_ID = 5;
const LANE_ID_PREFIX = 6;
const LANE_SETTLE = 7;
const LANE_FEISTEL = 16;

const MAX_PREFIX = 0xffff_ffff;
const HALF = 2 ** 24;
const ID_SHAPE = /^([0-9a-f]{8})-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-([0-9a-f]{12})$/;

export class Account {
  /** The `annotations` text of a padded record. */
  private readonly padText: string;

  constructor(readonly spec: AccountSpec) {
    const bytes = spec.padding?.bytes ?? 0;
    this.padText = 'lorem ipsum '.repeat(Math.ceil(bytes / 12)).slice(0, bytes);
  }

  get seed(): number {
    return this.spec.seed;
  }

  kindOf(i: number): JobKind {
    const { preRecorded: p, of } = this.spec.kinds;
    return ceilDiv((i + 1) * p, of) > ceilDiv(i * p, of) ? 'pre-recorded' : 'live';
  }

  /**
   * What job i's own stream decides before anything is built; cheap enough to draw for every job.
   * `status` is the one it is born with: queued for an arrival, else the drawn one.
   */
  head(i: number) {
    const rng = new Rng(this.seed, i, LANE_HEAD);
    const drawn = rng.weighted(STATUS_MIX);
    const metadataCode = drawMetadataCode(rng);
    const utterances = rng.around(this.spec.utterancesPerJob);
    // Where a pending job ends once the account grows.
    const final: 'done' | 'error' = rng.chance(0.9) ? 'done' : 'error';
    const status: JobStatus = this.arrives(i) ? 'queued' : drawn;
    return { status, metadataCode, utterances, final };
  }

  /** Whether job i arrives as time passes (born queued) rather than being history. */
  arrives(i: number): boolean {
    const arrivals = this.spec.lifecycle?.arrivals;
    return arrivals !== undefined && i >= arrivals.firstIndex;
  }

  /** created_at of job i, ms; never decreases with i. */
  createdMs(i: number): number {
    return this.slotMs(this.chain(i).root);
  }

  idOf(i: number): string {
    const prefix = this.chain(i).prefix;
    const a = hash32(this.seed, i, LANE_ID);
    const b = hash32(this.seed, i, LANE_ID + 64);
    const tail = feistel(this.seed, i);
    return (
      `${hex(prefix, 8)}-${hex(a >>> 16, 4)}-4${hex(a & 0xfff, 3)}-` +
      `${'89ab'[b >>> 30]}${hex(b & 0xfff, 3)}-${hex(Math.floor(tail / HALF), 6)}${hex(tail % HALF, 6)}`
    );
  }

  /** The index of the job with this id, if it is one of this account's (below `count`). */
  indexOfId(id: string, count: number): number | undefined {
    const match = ID_SHAPE.exec(id);
    if (!match) return undefined;
    const i = feistel(this.seed, Number.parseInt(match[2]!, 16), true);
    return i < count && this.idOf(i) === id ? i : undefined;
  }

  /** When job i, pending in a growing account, moves to processing and then settles, ms (in that order). */
  settlement(i: number, born: JobStatus) {
    const life = this.spec.lifecycle;
    if (!life || (born !== 'queued' && born !== 'processing')) return undefined;
    const since = this.arrives(i) ? this.createdMs(i) : life.arrivals.startMs;
    const queuedFor = born === 'queued' ? (0.02 + 0.2 * unit(this.seed, i, LANE_SETTLE)) * life.settleMs : 0;
    const processingFor = (0.05 + 0.7 * unit(this.seed, i, LANE_SETTLE + 64)) * life.settleMs;
    const processingAt = Math.round(since + queuedFor);
    return { processingAt, settledAt: Math.round(processingAt + processingFor) };
  }

  /** Job i as it is in `status` (its born status, or one a growing account moved it to). */
  record(i: number, status?: JobStatus): JobRecord {
    const { status: born, utterances, metadataCode } = this.head(i);
    const kind = this.kindOf(i);
    const createdAt = new Date(this.createdMs(i));
    const job = { kind, status: born, createdAt, utterances, words: this.spec.wordsPerUtterance };
    const record = buildJob(new Rng(this.seed, i, LANE_BODY), job, this.idOf(i), metadataOf(metadataCode));
    if (status !== undefined && status !== born) {
      moveJob(new Rng(this.seed, i, LANE_LATER), record, status, job);
      const settled = this.settlement(i, born)?.settledAt;
      if (settled !== undefined && (status === 'done' || status === 'error'))
        record['completed_at'] = new Date(settled).toISOString();
    }
    const padding = this.spec.padding;
    if (padding && (padding.kind === undefined || padding.kind === kind))
      record['annotations'] = this.padText;
    return record;
  }

  private segmentOf(i: number): Segment {
    return this.arrives(i) ? this.spec.lifecycle!.arrivals : this.spec.history;
  }

  private slotMs(i: number): number {
    const segment = this.segmentOf(i);
    const k = i - segment.firstIndex;
    const lo = Math.floor(segment.startMs + k * segment.gapMs);
    const hi = Math.max(lo + 1, Math.floor(segment.startMs + (k + 1) * segment.gapMs));
    return lo + Math.floor(unit(this.seed, i, LANE_SLOT) * (hi - lo));
  }

  private tieDrawn(i: number): boolean {
    return i > 0 && this.segmentOf(i) === this.segmentOf(i - 1) && unit(this.seed, i, LANE_TIE) < TIE_RATE;
  }

  /**
   * The job whose slot gives job i its created_at (i itself, or the first of the run of jobs tied
   * to it) and the first 8 hex digits of its id: a tied job's prefix is greater than the one
   * before, so ties sort by index. A prefix at its maximum ends the run (never in practice).
   */
  private chain(i: number): { root: number; prefix: number } {
    let start = i;
    while (this.tieDrawn(start)) start -= 1;
    let root = start;
    let prefix = hash32(this.seed, start, LANE_ID_PREFIX);
    for (let j = start + 1; j <= i; j++) {
      if (prefix === MAX_PREFIX) {
        root = j;
        prefix = hash32(this.seed, j, LANE_ID_PREFIX);
      } else {
        const room = MAX_PREFIX - prefix;
        prefix += 1 + Math.floor(unit(this.seed, j, LANE_ID_PREFIX) * (room >>> 1));
      }
    }
    return { root, prefix };
  }
}

function ceilDiv(a: number, b: number): number {
  return Math.floor((a + b - 1) / b);
}

function hex(value: number, width: number): string {
  return value.toString(16).padStart(width, '0');
}

/** A keyed bijection of [0, 2^48): four Feistel rounds over two 24-bit halves; `inverse` undoes it. */
function feistel(seed: number, x: number, inverse = false): number {
  let left = Math.floor(x / HALF) % HALF;
  let right = x % HALF;
  // The inverse is the same rounds in reverse order over the swapped halves.
  if (inverse) [left, right] = [right, left];
  for (let k = 0; k < 4; k++) {
    const next = (left ^ (hash32(seed, LANE_FEISTEL + (inverse ? 3 - k : k), right) & 0xff_ffff)) >>> 0;
    left = right;
    right = next;
  }
  if (inverse) [left, right] = [right, left];
  return left * HALF + right;
}

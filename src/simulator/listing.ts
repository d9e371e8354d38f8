/**
 * One list query over the account, answered by index arithmetic: the matching generated jobs lie
 * in one index range (created_at never decreases with the index, so date filters are two binary
 * searches) and are counted and found by class (job-index.ts); the overlay's records are merged in
 * at their places, in every list's order: created_at descending, ties by id descending. The
 * overlay holds jobs added through the data API, generated jobs once edited or advanced (taken
 * over), and records given to serve, each with its JSON until it changes: few by design.
 */
import type { Account } from './account.js';
import { type ClassMask, type JobIndex, maskOf } from './job-index.js';
import { type ListQuery, metadataMatches } from './query.js';
import { METADATA_CODES, metadataOf } from './records/job.js';
import type { JobKind, JobRecord, JobStatus } from './types.js';

export interface Entry {
  readonly record: JobRecord;
  /** UTF-8 JSON of the record; undefined until served, and after a change. */
  json?: Buffer | undefined;
  createdMs: number;
  hidden: boolean;
  /** Transcript size used when the job completes later. */
  readonly utterances: number;
  readonly words: number;
}

export class Overlay {
  private readonly entries = new Map<string, Entry>();
  private listed: Entry[] | undefined;

  get(id: string): Entry | undefined {
    return this.entries.get(id);
  }

  /** Visible entries in list order; kept until a change. */
  visible(): readonly Entry[] {
    this.listed ??= [...this.entries.values()].filter((e) => !e.hidden).sort(compareEntries);
    return this.listed;
  }

  put(record: JobRecord, hidden: boolean, utterances: number, words: number): Entry {
    // A given record without a string id (to test a client's validation) is served but not addressable.
    const id =
      typeof record['id'] === 'string' && record['id'] !== ''
        ? record['id']
        : `\u0000no-id-${this.entries.size}`;
    const entry: Entry = { record, createdMs: createdMsOf(record), hidden, utterances, words };
    this.entries.set(id, entry);
    this.listed = undefined;
    return entry;
  }

  /** The entry's record or visibility changed: its bytes and its place are made again. */
  changed(entry: Entry): void {
    entry.json = undefined;
    entry.createdMs = createdMsOf(entry.record);
    this.listed = undefined;
  }

  delete(id: string): boolean {
    const deleted = this.entries.delete(id);
    if (deleted) this.listed = undefined;
    return deleted;
  }
}

function createdMsOf(record: JobRecord): number {
  const ms = Date.parse(String(record['created_at']));
  return Number.isNaN(ms) ? 0 : ms;
}

function compareEntries(a: Entry, b: Entry): number {
  if (a.createdMs !== b.createdMs) return b.createdMs - a.createdMs;
  const ia = String(a.record['id']);
  const ib = String(b.record['id']);
  return ia === ib ? 0 : ia < ib ? 1 : -1;
}

function matches(entry: Entry, query: ListQuery): boolean {
  const r = entry.record;
  const ms = entry.createdMs;
  if (query.kinds && !query.kinds.includes(r['kind'] as JobKind)) return false;
  if (query.statuses && !query.statuses.includes(r['status'] as JobStatus)) return false;
  if (ms < query.from || ms >= query.until) return false;
  return query.metadata === null || metadataMatches(r['custom_metadata'], query.metadata);
}

/** Jobs scanned one by one for the next match before the block counts are asked. */
const SCAN = 512;

/** A generated job (its index) or an overlay entry. */
export type ListItem = number | Entry;

export class ListView {
  readonly total: number;
  private readonly lo: number;
  private readonly hi: number;
  private readonly mask: ClassMask;
  /** Which custom_metadata codes match, when the query filters on it. */
  private readonly metadata: Uint8Array | null;
  /** Matching generated jobs. */
  private readonly generated: number;
  private readonly extras: readonly Entry[];
  /** Where each of `extras` stands in the list, increasing. */
  private readonly positions: number[];

  constructor(
    private readonly account: Account,
    private readonly index: JobIndex,
    overlay: readonly Entry[],
    query: ListQuery,
  ) {
    this.lo = this.firstAtOrAfter(query.from);
    this.hi = Math.max(this.lo, this.firstAtOrAfter(query.until));
    this.mask = maskOf(query.kinds, query.statuses);
    this.metadata = query.metadata ? metadataTable(query.metadata) : null;
    this.generated = this.countBetween(this.lo, this.hi);
    this.extras = overlay.filter((entry) => matches(entry, query));
    this.positions = this.extras.map((entry, j) => j + this.generatedBefore(entry));
    this.total = this.generated + this.extras.length;
  }

  /** The items at list positions [from, to), newest first. */
  slice(from: number, to: number): ListItem[] {
    const end = Math.min(to, this.total);
    if (from >= end) return [];
    const extrasBefore = (p: number): number => this.positions.filter((at) => at < p).length;
    let e = extrasBefore(from);
    const generated = this.generatedSlice(from - e, end - from - (extrasBefore(end) - e));
    const items: ListItem[] = [];
    let g = 0;
    for (let p = from; p < end; p++) {
      if (e < this.positions.length && this.positions[e] === p) items.push(this.extras[e++]!);
      else items.push(generated[g++]!);
    }
    return items;
  }

  private matchesAt(i: number): boolean {
    return (
      ((this.mask >> this.index.classAt(i)) & 1) === 1 &&
      (this.metadata === null || this.metadata[this.index.metadataAt(i)] === 1)
    );
  }

  /** Matching generated jobs in [a, b). */
  private countBetween(a: number, b: number): number {
    if (a >= b) return 0;
    if (this.metadata === null) return this.index.rank(this.mask, b) - this.index.rank(this.mask, a);
    let n = 0;
    for (let i = a; i < b; i++) if (this.matchesAt(i)) n++;
    return n;
  }

  /** The first index whose created_at is >= ms (the index count when none). */
  private firstAtOrAfter(ms: number): number {
    let lo = 0;
    let hi = this.index.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.account.createdMs(mid) < ms) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Matching generated jobs that come before `entry` in the list. */
  private generatedBefore(entry: Entry): number {
    if (this.generated === 0) return 0;
    const clamp = (i: number): number => Math.min(this.hi, Math.max(this.lo, i));
    const newer = clamp(this.firstAtOrAfter(entry.createdMs + 1));
    const same = clamp(this.firstAtOrAfter(entry.createdMs));
    let n = this.countBetween(newer, this.hi);
    const id = String(entry.record['id']);
    for (let i = same; i < newer; i++) if (this.matchesAt(i) && this.account.idOf(i) > id) n++;
    return n;
  }

  /** Matching generated jobs at ranks [rank, rank + count) of their own order, newest first. */
  private generatedSlice(rank: number, count: number): number[] {
    if (count <= 0 || rank >= this.generated) return [];
    const out = [this.indexOfRank(rank)];
    while (out.length < count) {
      const next = this.below(out.at(-1)!);
      if (next < 0) break;
      out.push(next);
    }
    // Ties: whole runs of one created_at at both ends, sorted by id, then the ranks asked. A run's
    // jobs are next to each other by index, so the scans stop at the first other created_at.
    const top = out[0]!;
    const first = this.account.createdMs(top);
    const newer: number[] = [];
    for (let i = top + 1; i < this.hi && this.account.createdMs(i) === first; i++)
      if (this.matchesAt(i)) newer.unshift(i);
    const bottom = out.at(-1)!;
    const last = this.account.createdMs(bottom);
    for (let i = bottom - 1; i >= this.lo && this.account.createdMs(i) === last; i--)
      if (this.matchesAt(i)) out.push(i);
    return this.inListOrder([...newer, ...out]).slice(newer.length, newer.length + count);
  }

  /** Indexes, newest first by index, put in list order (only runs of one created_at move). */
  private inListOrder(run: number[]): number[] {
    const created = run.map((i) => this.account.createdMs(i));
    if (created.every((ms, k) => k === 0 || ms !== created[k - 1])) return run;
    const keyed = run.map((i, k) => ({ i, ms: created[k]!, id: this.account.idOf(i) }));
    keyed.sort((a, b) => (a.ms !== b.ms ? b.ms - a.ms : a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    return keyed.map((k) => k.i);
  }

  /** The index of the matching generated job at this rank, newest first. */
  private indexOfRank(rank: number): number {
    if (this.metadata === null) {
      const oldestFirst = this.generated - 1 - rank;
      return this.index.select(this.mask, this.index.rank(this.mask, this.lo) + oldestFirst);
    }
    let left = rank;
    for (let i = this.hi - 1; i >= this.lo; i--) {
      if (this.matchesAt(i)) {
        if (left === 0) return i;
        left -= 1;
      }
    }
    throw new RangeError(`ListView: no job at rank ${rank}`);
  }

  /** The next matching index below i (older), or -1: a short scan, then the block counts. */
  private below(i: number): number {
    const stop = this.metadata === null ? Math.max(this.lo, i - SCAN) : this.lo;
    for (let j = i - 1; j >= stop; j--) if (this.matchesAt(j)) return j;
    if (stop === this.lo) return -1;
    const older = this.index.rank(this.mask, stop);
    return older > this.index.rank(this.mask, this.lo) ? this.index.select(this.mask, older - 1) : -1;
  }
}

function metadataTable(wanted: Readonly<Record<string, string>>): Uint8Array {
  return Uint8Array.from({ length: METADATA_CODES }, (_, code) =>
    metadataMatches(metadataOf(code), wanted) ? 1 : 0,
  );
}

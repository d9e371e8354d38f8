/**
 * The simulator's job store: a generated account (account.ts) indexed in two bytes a job
 * (job-index.ts), the overlay of records changed or added through the data API, and a growing
 * account's clock (growth.ts). Pages are built per request (listing.ts); the JSON of recently
 * served generated jobs is kept in an LRU cache bounded in bytes. An account with a retention
 * lists no job older than it, as of the clock at each request (the job is kept: lengthen the
 * retention and it is listed again).
 */
import type { Account } from './account.js';
import { Growth, type JobChanges } from './growth.js';
import { classOf, GONE, JobIndex, statusOfClass } from './job-index.js';
import { type Entry, type ListItem, ListView, Overlay } from './listing.js';
import type { ListQuery } from './query.js';
import { generateJob, moveJob } from './records/job.js';
import type { Rng } from './rng.js';
import type { JobKind, JobRecord, JobSpec } from './types.js';

/** A simulator's `data`, what tests and benches drive: the store without its serving side. */
export type SimulatorData = Omit<JobStore, 'account' | 'list' | 'bytesOf' | 'tick'>;

/** cacheBytes and retentionMs: as SimulatorOptions (types.ts) has them, defaults applied. */
export interface StoreOptions {
  /** Generated jobs the account starts with (indexes 0 to jobs - 1). */
  readonly jobs: number;
  /** Records to serve as they are, besides the generated ones. */
  readonly records?: readonly JobRecord[];
  /** Draws of the jobs added through the data API. */
  readonly rng: Rng;
  /** Told of each arrival and move of a growing account (webhooks.ts). */
  readonly changes?: JobChanges | undefined;
  /** The time, ms since the epoch; a growing account moves with it. */
  readonly clock: () => number;
  readonly cacheBytes: number;
  readonly retentionMs?: number | null;
}

/** Every job, no filter: what count(), slice() and all() list. */
const EVERYTHING: ListQuery = {
  offset: 0,
  limit: Number.MAX_SAFE_INTEGER,
  statuses: null,
  kinds: null,
  from: Number.NEGATIVE_INFINITY,
  until: Number.POSITIVE_INFINITY,
  metadata: null,
};

/** A generated job's JSON, as of its class. */
type Cached = { readonly cls: number; readonly bytes: Buffer };

export class JobStore {
  private readonly index: JobIndex;
  private readonly overlay = new Overlay();
  private readonly growth: Growth | undefined;
  /** Map order is use order: the first key is the least recently served. */
  private readonly cache = new Map<number, Cached>();
  private cachedBytes = 0;
  private retentionMs: number | null;

  constructor(
    readonly account: Account,
    private readonly options: StoreOptions,
  ) {
    this.retentionMs = options.retentionMs ?? null;
    this.index = new JobIndex(options.jobs);
    const life = account.spec.lifecycle;
    this.growth = life ? new Growth(account, life, this.index, options.changes) : undefined;
    for (let i = 0; i < options.jobs; i++) {
      const { status, metadataCode } = account.head(i);
      this.index.push(classOf(account.kindOf(i), status), metadataCode);
      this.growth?.adopt(i, status);
    }
    for (const record of options.records ?? [])
      this.overlay.put(record, false, account.spec.utterancesPerJob, account.spec.wordsPerUtterance);
  }

  /** The list a query selects, as of now. */
  list(query: ListQuery): ListView {
    this.tick();
    return new ListView(this.account, this.index, this.overlay.visible(), this.retained(query));
  }

  /** The JSON bytes of a listed item, exactly as served. */
  bytesOf(item: ListItem): Buffer {
    if (typeof item !== 'number') {
      item.json ??= Buffer.from(JSON.stringify(item.record));
      return item.json;
    }
    const cls = this.index.classAt(item);
    const hit = this.cache.get(item);
    const bytes = hit?.cls === cls ? hit.bytes : Buffer.from(JSON.stringify(this.generated(item)));
    this.remember(item, { cls, bytes });
    return bytes;
  }

  /** Listed jobs, newest first. Builds every record: for small accounts; pages never use it. */
  all(): JobRecord[] {
    return this.slice(0, Number.MAX_SAFE_INTEGER);
  }

  count(): number {
    return this.list(EVERYTHING).total;
  }

  /** The listed jobs at positions [start, end) of the list, newest first (walk a big account with it). */
  slice(start: number, end: number): JobRecord[] {
    return this.list(EVERYTHING)
      .slice(start, end)
      .map((item) => (typeof item === 'number' ? this.generated(item) : item.record));
  }

  get(id: string): JobRecord | undefined {
    this.tick();
    const entry = this.overlay.get(id);
    if (entry) return entry.record;
    const i = this.indexOf(id);
    return i === undefined ? undefined : this.generated(i);
  }

  /**
   * Generates a job (defaults: pre-recorded, queued, created now) and stores it; a `hidden` one is
   * not listed until reveal(id).
   */
  add(spec: Partial<JobSpec & { readonly hidden: boolean }> = {}): JobRecord {
    const utterances = spec.utterances ?? this.options.rng.around(this.account.spec.utterancesPerJob);
    const words = spec.words ?? this.account.spec.wordsPerUtterance;
    const record = generateJob(this.options.rng, {
      kind: spec.kind ?? 'pre-recorded',
      status: spec.status ?? 'queued',
      createdAt: spec.createdAt ?? new Date(this.options.clock()),
      utterances,
      words,
    });
    this.overlay.put(record, spec.hidden ?? false, utterances, words);
    return record;
  }

  /** A hidden job becomes listed, at its (past) created_at. */
  reveal(id: string): void {
    const entry = this.entry(id);
    entry.hidden = false;
    this.overlay.changed(entry);
  }

  /** queued -> processing -> done by default; or straight to `to`. */
  advance(id: string, to?: 'processing' | 'done' | 'error'): JobRecord {
    const entry = this.entry(id);
    const status = entry.record['status'];
    const target = to ?? (status === 'queued' ? 'processing' : status === 'processing' ? 'done' : undefined);
    if (target === undefined)
      throw new Error(`simulator: job ${id} is ${String(status)}; pass the status to advance to`);
    return this.edit(id, (record) => moveJob(this.options.rng, record, target, entry));
  }

  /** Changes a record in place (custom_metadata, result, ...); its cached JSON is dropped. */
  edit(id: string, change: (record: JobRecord) => void): JobRecord {
    const entry = this.entry(id);
    change(entry.record);
    this.overlay.changed(entry);
    return entry.record;
  }

  delete(id: string): boolean {
    this.tick();
    if (this.overlay.delete(id)) return true;
    const i = this.indexOf(id);
    if (i === undefined) return false;
    this.forget(i);
    return true;
  }

  /**
   * Deletes a job of one of `kinds` that the account still holds (not past the retention), as
   * `DELETE /v2/{kind}/{id}` does; false when there is none.
   */
  deleteOf(id: string, kinds: readonly JobKind[]): boolean {
    const record = this.get(id);
    if (record === undefined || !kinds.includes(record['kind'] as JobKind)) return false;
    const created = Date.parse(String(record['created_at']));
    const oldest = this.oldestListedMs();
    if (oldest !== null && !(created >= oldest)) return false;
    return this.delete(id);
  }

  /** The retention, ms: jobs created longer ago than this are no longer listed; null: kept forever. */
  setRetention(ms: number | null): void {
    if (ms !== null && !(ms > 0)) throw new RangeError(`retention must be above 0 ms (got ${ms})`);
    this.retentionMs = ms;
  }

  /** The earliest created_at listed now, ms; null: no retention. */
  private oldestListedMs(): number | null {
    return this.retentionMs === null ? null : this.options.clock() - this.retentionMs;
  }

  /** The query with the retention's lower bound (a job created exactly at it is kept). */
  private retained(query: ListQuery): ListQuery {
    const oldest = this.oldestListedMs();
    return oldest === null ? query : { ...query, from: Math.max(query.from, Math.ceil(oldest)) };
  }

  tick(): void {
    this.growth?.advanceTo(this.options.clock());
  }

  private generated(i: number): JobRecord {
    return this.account.record(i, statusOfClass(this.index.classAt(i)));
  }

  /** The index of a listed generated job. */
  private indexOf(id: string): number | undefined {
    const i = this.account.indexOfId(id, this.index.length);
    return i !== undefined && this.index.classAt(i) !== GONE ? i : undefined;
  }

  /** The overlay entry of a job; a generated job is taken over (copied into the overlay) first. */
  private entry(id: string): Entry {
    this.tick();
    const entry = this.overlay.get(id);
    if (entry) return entry;
    const i = this.indexOf(id);
    if (i === undefined) throw new Error(`simulator: no job ${id}`);
    const record = this.generated(i);
    const { utterances } = this.account.head(i);
    this.forget(i);
    return this.overlay.put(record, false, utterances, this.account.spec.wordsPerUtterance);
  }

  private forget(i: number): void {
    this.index.setClass(i, GONE);
    this.uncache(i);
  }

  private uncache(i: number): void {
    this.cachedBytes -= this.cache.get(i)?.bytes.length ?? 0;
    this.cache.delete(i);
  }

  /** Keeps `cached` as the most recently served, dropping the least recently served past cacheBytes. */
  private remember(i: number, cached: Cached): void {
    this.uncache(i);
    if (cached.bytes.length > this.options.cacheBytes) return;
    this.cache.set(i, cached);
    this.cachedBytes += cached.bytes.length;
    for (const key of this.cache.keys()) {
      if (this.cachedBytes <= this.options.cacheBytes) break;
      this.uncache(key);
    }
  }
}

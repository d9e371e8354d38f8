/**
 * The simulator's job store: records in list order (newest first, ties by id descending), each
 * with its UTF-8 JSON cached until the record changes, so pages are built by concatenating bytes
 * and a 150 MB dataset is stringified and encoded once, not once per request.
 */
import { completeJob, failJob, GENERATE_DEFAULTS, generateJob } from './generate.js';
import type { Rng } from './rng.js';
import type { JobKind, JobRecord, JobStatus } from './types.js';

const ARENA_BYTES = 32 * 1024 * 1024;

export interface AddSpec {
  kind: JobKind;
  status: JobStatus;
  createdAt: Date;
  utterances: number;
  words: number;
  /** Late-visible: not listed until reveal(id). */
  hidden: boolean;
}

export interface SimulatorData {
  /** Visible jobs, newest first (the order lists use). */
  all(): JobRecord[];
  get(id: string): JobRecord | undefined;
  /** Generates a job (defaults: pre-recorded, queued, created now) and stores it. */
  add(spec?: Partial<AddSpec>): JobRecord;
  /** A hidden job becomes listed, at its (past) created_at. */
  reveal(id: string): void;
  /** queued -> processing -> done by default; or straight to `to`. */
  advance(id: string, to?: 'processing' | 'done' | 'error'): JobRecord;
  /** Changes a record in place (custom_metadata, result, ...); its cached JSON is dropped. */
  edit(id: string, change: (record: JobRecord) => void): JobRecord;
  delete(id: string): boolean;
}

export interface Entry {
  readonly record: JobRecord;
  /** UTF-8 JSON of the record; undefined after a change. */
  json: Buffer | undefined;
  createdMs: number;
  hidden: boolean;
  /** Transcript size used when the job completes later. */
  readonly utterances: number;
  readonly words: number;
}

export interface StoreDefaults {
  readonly utterancesPerJob: number;
  readonly wordsPerUtterance: number;
}

export class JobStore implements SimulatorData {
  private readonly entries = new Map<string, Entry>();
  private visibleCache: Entry[] | undefined;
  private arena = { bytes: Buffer.alloc(0), used: 0 };

  constructor(
    records: readonly JobRecord[],
    private readonly rng: Rng,
    private readonly defaults: StoreDefaults = {
      utterancesPerJob: GENERATE_DEFAULTS.utterancesPerJob,
      wordsPerUtterance: GENERATE_DEFAULTS.wordsPerUtterance,
    },
  ) {
    for (const record of records)
      this.put(record, false, this.defaults.utterancesPerJob, this.defaults.wordsPerUtterance);
  }

  /** Visible entries in list order; cached until a change. */
  visible(): readonly Entry[] {
    this.visibleCache ??= [...this.entries.values()].filter((e) => !e.hidden).sort(compareEntries);
    return this.visibleCache;
  }

  /** Stringifies every record now, so that the first walk of a big dataset is not the one to pay for it. */
  warm(): void {
    for (const entry of this.entries.values()) this.jsonOf(entry);
  }

  /** The record's JSON as UTF-8 bytes, made once per change. */
  jsonOf(entry: Entry): Buffer {
    entry.json ??= this.encode(JSON.stringify(entry.record));
    return entry.json;
  }

  /**
   * Encodes into shared 32 MB arenas: one allocation per arena rather than per record, which
   * spares V8 a full collection every few buffers while a 150 MB dataset is encoded.
   */
  private encode(text: string): Buffer {
    const length = Buffer.byteLength(text);
    if (length > ARENA_BYTES / 4) return Buffer.from(text);
    if (this.arena.used + length > this.arena.bytes.length) {
      this.arena = { bytes: Buffer.allocUnsafeSlow(ARENA_BYTES), used: 0 };
    }
    const start = this.arena.used;
    this.arena.bytes.write(text, start, 'utf8');
    this.arena.used += length;
    return this.arena.bytes.subarray(start, start + length);
  }

  all(): JobRecord[] {
    return this.visible().map((e) => e.record);
  }

  get(id: string): JobRecord | undefined {
    return this.entries.get(id)?.record;
  }

  add(spec: Partial<AddSpec> = {}): JobRecord {
    const utterances = spec.utterances ?? this.rng.around(this.defaults.utterancesPerJob);
    const words = spec.words ?? this.defaults.wordsPerUtterance;
    const record = generateJob(this.rng, {
      kind: spec.kind ?? 'pre-recorded',
      status: spec.status ?? 'queued',
      createdAt: spec.createdAt ?? new Date(),
      utterances,
      words,
    });
    this.put(record, spec.hidden ?? false, utterances, words);
    return record;
  }

  reveal(id: string): void {
    const entry = this.entry(id);
    entry.hidden = false;
    this.visibleCache = undefined;
  }

  advance(id: string, to?: 'processing' | 'done' | 'error'): JobRecord {
    const entry = this.entry(id);
    const status = entry.record['status'];
    const target = to ?? (status === 'queued' ? 'processing' : status === 'processing' ? 'done' : undefined);
    if (target === undefined)
      throw new Error(`simulator: job ${id} is ${String(status)}; pass the status to advance to`);
    return this.edit(id, (record) => {
      if (target === 'processing') record['status'] = 'processing';
      else if (target === 'done')
        completeJob(this.rng, record, { utterances: entry.utterances, words: entry.words });
      else failJob(this.rng, record);
    });
  }

  edit(id: string, change: (record: JobRecord) => void): JobRecord {
    const entry = this.entry(id);
    change(entry.record);
    entry.json = undefined;
    entry.createdMs = createdMsOf(entry.record);
    this.visibleCache = undefined;
    return entry.record;
  }

  delete(id: string): boolean {
    const deleted = this.entries.delete(id);
    if (deleted) this.visibleCache = undefined;
    return deleted;
  }

  private put(record: JobRecord, hidden: boolean, utterances: number, words: number): void {
    // A given record without a string id (to test a client's validation) is served but not addressable.
    const id =
      typeof record['id'] === 'string' && record['id'] !== ''
        ? record['id']
        : `\u0000no-id-${this.entries.size}`;
    this.entries.set(id, {
      record,
      json: undefined,
      createdMs: createdMsOf(record),
      hidden,
      utterances,
      words,
    });
    this.visibleCache = undefined;
  }

  private entry(id: string): Entry {
    const entry = this.entries.get(id);
    if (!entry) throw new Error(`simulator: no job ${id}`);
    return entry;
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

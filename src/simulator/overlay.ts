/**
 * The records the simulator holds as objects: jobs added through the data API, generated jobs
 * once edited or advanced (taken over from the account), and records given to serve instead of
 * generated ones. Each keeps its UTF-8 JSON until it changes. Few by design: a generated account
 * holds none until a test or a bench changes it.
 */
import type { JobRecord } from './types.js';

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

/**
 * The one product of the normalize stage, handed to the loader: a batch of records validated,
 * hashed and mapped to column rows. Records that failed validation travel as quarantine entries.
 * Pages waiting together are merged into one batch that holds each job once.
 */
import type { RecordProblem } from '../records/validate.js';
import { JobRows, type JobRowsWire } from './job-rows.js';

/** A valid job: what the loader needs besides its rows (to compare, count and report). */
export interface NormalizedJob {
  readonly id: string;
  readonly kind: string;
  readonly status: string;
  readonly createdAt: string;
  /** sha1 of the record's JSON text (content-hash.ts): equal to the stored one means unchanged. */
  readonly hash: string;
}

/** A record that failed validation, for the quarantine. */
export interface QuarantineItem {
  /** The record's JSON text (any JSON value, not only objects). */
  readonly raw: string;
  readonly errors: readonly RecordProblem[];
  readonly id?: string | undefined;
  readonly kind?: string | undefined;
}

export interface RowBatch {
  /** Records normalized, valid or not, repeats included: what a run counts as fetched. */
  readonly records: number;
  /**
   * The id of every record that has a string one, valid or not: what a --full run counts as seen, so
   * a job upstream still lists but that failed validation is not taken for a deleted one.
   */
  readonly listedIds: readonly string[];
  /** Valid jobs by id, each once (the later copy of a repeated one), in the order of their rows. */
  readonly jobs: ReadonlyMap<string, NormalizedJob>;
  /** The rows of every job of `jobs`, `synced_at` unset until the load (JobRows.stamp). */
  readonly rows: JobRows;
  readonly quarantine: readonly QuarantineItem[];
}

/**
 * One batch of several (pages loaded together), each job once: a job in two of them (the walk's
 * anchor, a slice started again, a boundary shared by two slices) keeps its later copy, the earlier
 * one's rows are left out.
 */
export function mergeRowBatches(batches: readonly RowBatch[]): RowBatch {
  if (batches.length === 1 && batches[0]) return batches[0];
  // From the last batch back: an id already met there is dropped from the earlier batch.
  const later = new Set<string>();
  const kept: RowBatch[] = [];
  for (let b = batches.length - 1; b >= 0; b--) {
    const batch = batches[b] as RowBatch;
    const repeated = [...batch.jobs.keys()].filter((id) => later.has(id));
    kept.unshift(repeated.length === 0 ? batch : without(batch, new Set(repeated)));
    for (const id of batch.jobs.keys()) later.add(id);
  }
  const jobs = new Map<string, NormalizedJob>();
  const rows = new JobRows();
  let records = 0;
  const listedIds: string[] = [];
  const quarantine: QuarantineItem[] = [];
  for (const batch of kept) {
    for (const [id, job] of batch.jobs) jobs.set(id, job);
    rows.append(batch.rows);
    records += batch.records;
    listedIds.push(...batch.listedIds);
    quarantine.push(...batch.quarantine);
  }
  return { records, listedIds, jobs, rows, quarantine };
}

/** `batch` without the jobs of `ids` (their rows left out). */
function without(batch: RowBatch, ids: ReadonlySet<string>): RowBatch {
  const jobs = new Map([...batch.jobs].filter(([id]) => !ids.has(id)));
  return { ...batch, jobs, rows: batch.rows.only(new Set(jobs.keys())) };
}

/** A RowBatch as plain data (rowBatchToWire), to cross to another thread. */
export interface RowBatchWire extends Omit<RowBatch, 'rows'> {
  readonly rows: JobRowsWire;
}

/** `batch` for postMessage, and the buffers to transfer with it (the staged words' columns). */
export function rowBatchToWire(batch: RowBatch): { wire: RowBatchWire; transfer: ArrayBuffer[] } {
  const { wire, transfer } = batch.rows.toWire();
  return { wire: { ...batch, rows: wire }, transfer };
}

export function rowBatchFromWire(wire: RowBatchWire): RowBatch {
  return { ...wire, rows: JobRows.fromWire(wire.rows) };
}

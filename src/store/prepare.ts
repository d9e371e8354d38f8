/**
 * The CPU half of a load, which needs no database: validate each record, take its JSON text (as
 * received, or stringified) and hash it, and optionally map the valid ones to rows. The sync engine
 * runs it in its fetchers, so that it overlaps the writer's DuckDB work instead of queueing behind
 * it (BENCHMARKS.md); JobLoader.load does it itself when given no prepared batch.
 */
import { validateJobRecord } from '../records/validate.js';
import { contentHash } from './content-hash.js';
import { JobRows, type PreparedJob } from './job-rows.js';
import type { QuarantineItem } from './quarantine-write.js';

export interface PreparedRecords {
  /** By id; the same id twice keeps the last record (the newest seen). */
  readonly valid: ReadonlyMap<string, PreparedJob>;
  readonly bad: readonly QuarantineItem[];
}

export interface PreparedBatch extends PreparedRecords {
  /**
   * The rows of every valid job, `synced_at` still unset (JobRows.stamp). Used when all of them are
   * to be written (new or changed); otherwise the loader maps the changed ones again.
   */
  readonly rows: JobRows;
}

/** Validates and hashes `records`; `texts` (aligned with them, or not used at all) become `raw`. */
export function prepareRecords(
  records: readonly unknown[],
  texts?: readonly (string | undefined)[],
): PreparedRecords {
  const valid = new Map<string, PreparedJob>();
  const bad: QuarantineItem[] = [];
  const received = texts?.length === records.length ? texts : undefined;
  for (const [i, raw] of records.entries()) {
    const checked = validateJobRecord(raw);
    const text = received?.[i] ?? JSON.stringify(raw) ?? 'null';
    if (!checked.ok) {
      bad.push({ raw: text, errors: checked.errors, id: checked.id, kind: checked.kind });
      continue;
    }
    valid.delete(checked.record.id);
    valid.set(checked.record.id, { record: checked.record, raw: text, hash: contentHash(text) });
  }
  return { valid, bad };
}

/** prepareRecords, plus the rows of every valid record. */
export function prepareBatch(
  records: readonly unknown[],
  texts?: readonly (string | undefined)[],
): PreparedBatch {
  const prepared = prepareRecords(records, texts);
  const rows = new JobRows();
  for (const job of prepared.valid.values()) rows.add(job, null);
  return { ...prepared, rows };
}

/**
 * One batch of several (pages loaded together). Undefined when a job appears in two of them (a
 * slice boundary seen twice): their rows would hold it twice, so the loader prepares the merged
 * records itself.
 */
export function mergePrepared(batches: readonly PreparedBatch[]): PreparedBatch | undefined {
  if (batches.length === 1) return batches[0];
  const valid = new Map<string, PreparedJob>();
  const bad: QuarantineItem[] = [];
  const rows = new JobRows();
  for (const batch of batches) {
    for (const [id, job] of batch.valid) {
      if (valid.has(id)) return undefined;
      valid.set(id, job);
    }
    bad.push(...batch.bad);
    rows.append(batch.rows);
  }
  return { valid, bad, rows };
}

/**
 * The normalize stage: records as received -> one RowBatch. Validates each record, takes its JSON
 * text (as received, or stringified) and hashes it, and maps the valid ones to column rows. Pure
 * CPU, no database: the sync engine runs it as each page is read (src/sync/page-rows.ts), in its
 * fetchers or its decode thread, so that it overlaps the writer's DuckDB work instead of queueing
 * behind it (BENCHMARKS.md), and the page's texts and parsed records can be let go once it returned.
 */
import { validateJobRecord } from '../records/validate.js';
import { contentHash } from './content-hash.js';
import { JobRows, type PreparedJob } from './job-rows.js';
import type { NormalizedJob, QuarantineItem, RowBatch } from './row-batch.js';

/**
 * `texts`: each record's JSON text as received, aligned with `records` (Page.texts), stored as `raw`
 * and hashed as it is; when absent or not aligned, the records are stringified. The same id twice
 * keeps the last record (the newest seen).
 */
export function normalizeRecords(
  records: readonly unknown[],
  texts?: readonly (string | undefined)[],
): RowBatch {
  const valid = new Map<string, PreparedJob>();
  const quarantine: QuarantineItem[] = [];
  const listedIds: string[] = [];
  const received = texts?.length === records.length ? texts : undefined;
  for (const [i, raw] of records.entries()) {
    const listed = listedId(raw);
    if (listed !== undefined) listedIds.push(listed);
    const checked = validateJobRecord(raw);
    const text = received?.[i] ?? JSON.stringify(raw) ?? 'null';
    if (!checked.ok) {
      quarantine.push({ raw: text, errors: checked.errors, id: checked.id, kind: checked.kind });
      continue;
    }
    valid.delete(checked.record.id);
    valid.set(checked.record.id, { record: checked.record, raw: text, hash: contentHash(text) });
  }
  const jobs = new Map<string, NormalizedJob>();
  const rows = new JobRows();
  rows.reserveWords([...valid.values()].map((job) => job.record));
  for (const [id, job] of valid) {
    const { record, hash } = job;
    jobs.set(id, { id, kind: record.kind, status: record.status, createdAt: record.created_at, hash });
    rows.add(job, null);
  }
  return { records: records.length, listedIds, jobs, rows, quarantine };
}

/** A record's `id` when it is a string, valid record or not (sync/slices.ts idOf, the walk's rule). */
function listedId(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const value = (item as { id?: unknown }).id;
  return typeof value === 'string' ? value : undefined;
}

/**
 * The `quarantine` table: records that failed validation, kept whole with their problems, keyed by their
 * text's hash (retried by src/load/quarantine-retry.ts). Bad records are rare: one statement each.
 */
import { contentHash, type QuarantinedText, type RecordProblem } from '../../normalize/index.js';
import type { Database, RowSource } from '../database.js';
import { countOf, only, queryText } from './queries.js';

export type QuarantinedRecord = {
  readonly raw_hash: string;
  readonly job_id: string | null;
  readonly kind: string | null;
  /** JSON text of the record's problems. */
  readonly errors: string;
  /** The record's JSON text, as received. */
  readonly raw: string;
  readonly seen_at: Date;
};

/** Keeps a record; the same one seen again counts up and is unresolved again. */
export const upsertQuarantined = (db: Database, record: QuarantinedRecord) =>
  db.run(queryText('quarantine-upsert'), record);

/** Errors kept per record: a record with a million bad words needs a sample, not a copy. */
const MAX_ERRORS = 100;

export function cappedErrors(errors: readonly RecordProblem[]): RecordProblem[] {
  if (errors.length <= MAX_ERRORS) return [...errors];
  return [
    ...errors.slice(0, MAX_ERRORS),
    { path: '', message: `... and ${errors.length - MAX_ERRORS} more errors` },
  ];
}

export async function recordQuarantined(
  db: Database,
  items: readonly QuarantinedText[],
  seenAt: Date,
): Promise<void> {
  for (const item of items) {
    await upsertQuarantined(db, {
      raw_hash: contentHash(item.raw),
      job_id: item.id ?? null,
      kind: item.kind ?? null,
      errors: JSON.stringify(cappedErrors(item.errors)),
      raw: item.raw,
      seen_at: seenAt,
    });
  }
}

export interface QuarantineRow {
  readonly rawHash: string;
  readonly jobId: string | null;
  readonly kind: string | null;
  readonly errors: RecordProblem[];
  /** The record's JSON text, as received. */
  readonly raw: string;
  readonly firstSeenAt: string;
  readonly lastSeenAt: string;
  readonly seenCount: number;
  readonly resolvedAt: string | null;
}

/** Unresolved rows, newest first; with `includeResolved`, all of them. */
export async function quarantineList(
  db: RowSource,
  options: { includeResolved?: boolean } = {},
): Promise<QuarantineRow[]> {
  const rows = await db.all<
    Omit<QuarantinedRecord, 'seen_at'> & {
      first_seen_at: Date;
      last_seen_at: Date;
      seen_count: number;
      resolved_at: Date | null;
    }
  >(queryText('quarantine-list'), { include_resolved: options.includeResolved ?? false });
  return rows.map((row) => ({
    rawHash: row.raw_hash,
    jobId: row.job_id,
    kind: row.kind,
    errors: JSON.parse(row.errors) as RecordProblem[],
    raw: row.raw,
    firstSeenAt: row.first_seen_at.toISOString(),
    lastSeenAt: row.last_seen_at.toISOString(),
    seenCount: row.seen_count,
    resolvedAt: row.resolved_at ? row.resolved_at.toISOString() : null,
  }));
}

/** Unresolved records, oldest first. */
export const unresolvedQuarantine = (db: RowSource) =>
  db.all<{ raw_hash: string; raw: string }>(queryText('quarantine-unresolved'));

export const countUnresolvedQuarantine = (db: RowSource) =>
  countOf(db.all(queryText('quarantine-unresolved-count')), 'n');

/** The errors of a still-failing record (JSON text), as this version reports them. */
export const setQuarantineErrors = (db: Database, params: { raw_hash: string; errors: string }) =>
  db.run(queryText('quarantine-set-errors'), only(params, 'raw_hash', 'errors'));

/** The records of these hashes loaded: resolved at `resolved_at`. */
export const resolveQuarantinedHashes = (
  db: Database,
  params: { hashes: readonly string[]; resolved_at: Date },
) => db.run(queryText('quarantine-resolve-hashes'), only(params, 'hashes', 'resolved_at'));

/** Jobs of these ids loaded: their quarantined records are resolved at `resolved_at`. */
export const resolveQuarantinedJobs = (db: Database, params: { ids: readonly string[]; resolved_at: Date }) =>
  db.run(queryText('quarantine-resolve-jobs'), only(params, 'ids', 'resolved_at'));

/**
 * Reading the quarantine: the records that failed validation, whole, with the problems found
 * (written by statements/quarantine.ts recordQuarantined; retried by src/load/quarantine-retry.ts).
 */
import type { RecordProblem } from '../normalize/index.js';
import type { Database } from './database.js';
import { quarantineRows } from './statements/quarantine.js';

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
  db: Database,
  options: { includeResolved?: boolean } = {},
): Promise<QuarantineRow[]> {
  const rows = await quarantineRows(db, { include_resolved: options.includeResolved ?? false });
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

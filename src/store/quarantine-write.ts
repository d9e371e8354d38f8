/**
 * Writes records that failed validation into `quarantine`, whole, keyed by the hash of their JSON
 * text. Bad records are rare, so one statement each is fine here (the bulk path is the appender).
 */

import type { QuarantinedText, RecordProblem } from '../normalize/index.js';
import { contentHash } from '../normalize/index.js';
import type { Database } from './database.js';
import { upsertQuarantined } from './statements/quarantine.js';

/** Errors kept per record: a record with a million bad words needs a sample, not a copy. */
export const MAX_ERRORS = 100;

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

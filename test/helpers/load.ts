/** Records into a file the way a sync loads them: as JSON texts, normalized, through the loader. */

import { type LoadResult, RecordLoader } from '../../src/load/loader.js';
import { normalizeTexts } from '../../src/normalize/page-records.js';
import type { Database } from '../../src/store/database.js';

/** Loads `records` (any JSON values: a bad one is quarantined) in one batch, as of `syncedAt`. */
export function loadRecords(
  db: Database,
  records: readonly unknown[],
  syncedAt = new Date(),
): Promise<LoadResult> {
  return new RecordLoader(db).load(normalizeTexts(records.map((record) => JSON.stringify(record))), syncedAt);
}

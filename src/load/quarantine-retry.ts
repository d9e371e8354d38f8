/** Retrying the quarantine: after an upgrade, records that failed an older version's validation may pass. */
import { normalizeTexts, validateJobRecord } from '../normalize/index.js';
import {
  cappedErrors,
  type Database,
  resolveQuarantinedHashes,
  setQuarantineErrors,
  unresolvedQuarantine,
} from '../store/index.js';
import { RecordLoader } from './loader.js';

/** Loads every unresolved record that now validates, in one transaction; the others get this version's errors. */
export async function quarantineRetry(
  db: Database,
  options: { now?: Date } = {},
): Promise<{ loaded: number; stillFailing: number }> {
  const now = options.now ?? new Date();
  return db.transaction(async () => {
    const rows = await unresolvedQuarantine(db);
    const passing: typeof rows = [];
    for (const row of rows) {
      const checked = validateJobRecord(JSON.parse(row.raw));
      if (checked.ok) passing.push(row);
      else {
        const errors = JSON.stringify(cappedErrors(checked.errors));
        await setQuarantineErrors(db, { raw_hash: row.raw_hash, errors });
      }
    }
    if (passing.length > 0) {
      const loader = new RecordLoader(db);
      await loader.load(normalizeTexts(passing.map((row) => row.raw)), now);
      const hashes = passing.map((row) => row.raw_hash);
      await resolveQuarantinedHashes(db, { hashes, resolved_at: now });
    }
    return { loaded: passing.length, stillFailing: rows.length - passing.length };
  });
}

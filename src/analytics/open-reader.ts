/**
 * Reports, queries and exports read the database read-only: they work whenever no sync is writing,
 * and while one is they wait up to `lockWaitMs` and then fail with a DatabaseError (busy) saying a
 * sync holds the file.
 */
import { Database } from '../store/database.js';

export async function withReadOnlyDatabase<T>(
  path: string,
  lockWaitMs: number,
  fn: (db: Database) => Promise<T>,
): Promise<T> {
  const db = await Database.open(path, { readOnly: true, lockWaitMs });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

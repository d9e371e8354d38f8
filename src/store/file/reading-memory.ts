/**
 * A writer reading the whole history (the publish after a sync) does it within the memory of a reading
 * that writes Parquet: only while nothing commits, as a commit reaching the other limit could fail.
 */
import type { ReaderMemory } from '../../memory/reader-memory.js';
import type { Database } from '../database.js';

/** `fn` run while the instance of `db` has the reader's `memory_limit`; the previous one restored after. */
export async function withReadingMemory<T>(
  db: Database,
  memory: Pick<ReaderMemory, 'memoryLimit'>,
  fn: () => Promise<T>,
): Promise<T> {
  const [before] = await db.all<{ limit: string }>("SELECT current_setting('memory_limit') AS limit");
  // SET takes no bound values: the limit is a whole number of MiB computed here, the old one DuckDB's own text.
  await db.run(`SET memory_limit = '${Math.floor(memory.memoryLimit / 2 ** 20)}MiB'`);
  try {
    return await fn();
  } finally {
    if (before) await db.run(`SET memory_limit = '${before.limit.replace(/'/g, '')}'`);
  }
}

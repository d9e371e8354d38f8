/**
 * A writer reading the whole history (the publish after a sync) does it within the memory of a reading
 * that writes Parquet: only while nothing commits, as a commit reaching the other limit could fail.
 */
import type { ReaderMemory } from '../../memory/reader-memory.js';
import type { Database, RowSource } from '../database.js';
import { mibSetting } from './open-instance.js';

/** `fn` run while the instance of `db` has the reader's `memory_limit`; the previous one restored after. */
export function withReadingMemory<T>(
  db: Database,
  memory: Pick<ReaderMemory, 'memoryLimit'>,
  fn: () => Promise<T>,
): Promise<T> {
  return withSetting(db, 'memory_limit', mibSetting(memory.memoryLimit), fn);
}

/**
 * `fn` run while DuckDB's setting `name` is `value`, the previous value set back after. SET takes no
 * bound values: `value` is computed in src/store, never input.
 */
export async function withSetting<T>(
  db: RowSource,
  name: 'memory_limit' | 'threads',
  value: string,
  fn: () => Promise<T>,
): Promise<T> {
  const [before] = await db.all<{ value: string }>('SELECT value FROM duckdb_settings() WHERE name = $name', {
    name,
  });
  await db.all(`SET ${name} = '${value}'`);
  try {
    return await fn();
  } finally {
    if (before) await db.all(`SET ${name} = '${before.value.replace(/'/g, '')}'`);
  }
}

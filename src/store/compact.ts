/**
 * Rewrites a transcript-sync file into a fresh one in the current storage format (STORAGE_FORMAT):
 * files created before it keep DuckDB's old format, where `raw` is stored uncompressed, and a
 * rebuild (migration 002) leaves the blocks of the old table free inside the file. Every table,
 * view and macro is copied (COPY FROM DATABASE), row counts are compared, and the copy replaces the
 * file by a rename while the original is still held, so no writer can slip in between.
 */
import { renameSync, rmSync, statSync } from 'node:fs';
import { sqlPathLiteral } from '../analytics/sql-literal.js';
import { DatabaseError } from '../errors.js';
import type { Database } from './database.js';
import { restrictFile, STORAGE_FORMAT } from './open-instance.js';

const COPY = 'tsync_compacted';

export interface CompactResult {
  readonly bytesBefore: number;
  readonly bytesAfter: number;
  readonly format: string;
}

/** `db` must be open for writing; it is left open on the original inode (the caller closes it). */
export async function compactFile(db: Database): Promise<CompactResult> {
  const target = `${db.path}.compact-tmp`;
  rmSync(target, { force: true });
  rmSync(`${target}.wal`, { force: true });
  const bytesBefore = statSync(db.path).size;
  await db.run('CHECKPOINT');
  const [row] = await db.all<{ name: string }>('SELECT current_database() AS name');
  const source = `"${String(row?.name).replaceAll('"', '""')}"`;
  try {
    await db.run(`ATTACH ${sqlPathLiteral(target, '--db')} AS ${COPY} (STORAGE_VERSION '${STORAGE_FORMAT}')`);
    await db.run(`COPY FROM DATABASE ${source} TO ${COPY}`);
    // Every table of the file, those of later migrations included, must have come along whole.
    const tables = await db.all<{ name: string }>(
      "SELECT table_name AS name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND NOT temporary",
    );
    for (const { name } of tables) {
      const table = `"${name.replaceAll('"', '""')}"`;
      const [counts] = await db.all<{ a: number; b: number }>(
        `SELECT (SELECT count(*) FROM ${source}.${table})::BIGINT AS a, (SELECT count(*) FROM ${COPY}.${table})::BIGINT AS b`,
      );
      if (Number(counts?.a) !== Number(counts?.b)) {
        throw new DatabaseError(
          `compacting ${db.path}: ${name} has ${counts?.a} rows but its copy ${counts?.b}`,
          db.path,
          false,
          false,
          { hint: 'the file was left as it was; report this' },
        );
      }
    }
    await db.run(`DETACH ${COPY}`);
  } catch (error) {
    await db.run(`DETACH DATABASE IF EXISTS ${COPY}`).catch(() => {});
    rmSync(target, { force: true });
    rmSync(`${target}.wal`, { force: true });
    throw error;
  }
  restrictFile(target);
  renameSync(target, db.path);
  return { bytesBefore, bytesAfter: statSync(db.path).size, format: STORAGE_FORMAT };
}

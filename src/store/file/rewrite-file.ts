/**
 * Rewrites a transcript-sync file into a fresh one in STORAGE_FORMAT, leaving behind the blocks deletes
 * freed. Row counts are compared, and the copy replaces the file by a rename while the original is
 * held, so no writer slips in. The copy is made in `<db>.compact-tmp/`, a folder only the owner may
 * enter whatever the umask, removed when the copy fails, on SIGINT or SIGTERM, and before the next copy.
 */
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { DatabaseError, isOutOfMemory } from '../../errors.js';
import { removedOnSignal } from '../../util/removed-on-signal.js';
import { sqlIdentifier, sqlPathLiteral } from '../../util/sql-literal.js';
import type { Database } from '../database.js';
import { openReadOnly } from '../open-file.js';
import {
  copyOtherTables,
  copyRecordBatch,
  recordBatches,
  tableRowCounts,
} from '../statements/file-upkeep.js';
import { JOBS_GROUP_RAW_BYTES } from './merge-row-groups.js';
import { restrictFile, STORAGE_FORMAT } from './open-instance.js';

export interface CompactResult {
  readonly bytesBefore: number;
  readonly bytesAfter: number;
  readonly format: string;
}

/** How far a copy has come: batches of `job_records` copied, of how many (the other tables follow the last). */
export interface CompactProgress {
  readonly batches: number;
  readonly copied: number;
}

/**
 * `db`, open for writing, is left open on the original inode. `finish` runs once every row is in the
 * copy (attached as tsync_compacted), before it is checked, so what it writes there lands with the copy.
 */
export async function compactFile(
  db: Database,
  onProgress: (progress: CompactProgress) => void = () => {},
  finish: () => Promise<void> = async () => {},
): Promise<CompactResult> {
  const folder = copyFolder(db.path);
  removeCopy(db.path);
  const bytesBefore = statSync(db.path).size;
  await removedOnSignal(folder, () => copyOver(db, folder, onProgress, finish));
  const dir = openSync(dirname(db.path), 'r'); // the rename made durable
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
  return { bytesBefore, bytesAfter: statSync(db.path).size, format: STORAGE_FORMAT };
}

/** Copies `db` into a file in `folder` (made private here), then renames that over `db`'s file. */
async function copyOver(
  db: Database,
  folder: string,
  onProgress: (progress: CompactProgress) => void,
  finish: () => Promise<void>,
): Promise<void> {
  mkdirSync(folder, { mode: 0o700 });
  chmodSync(folder, 0o700); // mkdir's mode is filtered by the umask
  const target = join(folder, basename(db.path));
  await db.run('CHECKPOINT');
  const [row] = await db.all<{ name: string }>('SELECT current_database() AS name');
  try {
    // DuckDB binds neither ATTACH's path nor COPY's database names: both are quoted by sql-literal.ts.
    await db.run(
      `ATTACH ${sqlPathLiteral(target, '--db')} AS tsync_compacted (STORAGE_VERSION '${STORAGE_FORMAT}')`,
    );
    await db.run(`COPY FROM DATABASE ${sqlIdentifier(String(row?.name))} TO tsync_compacted (SCHEMA)`);
    const batches = await recordBatches(db, { batchBytes: JOBS_GROUP_RAW_BYTES });
    for (const [index, batch] of batches.entries()) {
      await db.transaction(async () => {
        db.checkpointAtCommit();
        await copyRecordBatch(db, batch);
      });
      onProgress({ batches: batches.length, copied: index + 1 });
    }
    await copyOtherTables(db);
    await finish();
    await db.run('DETACH tsync_compacted');
    const copy = await openReadOnly(target);
    try {
      const expected = await tableRowCounts(db);
      const actual = await tableRowCounts(copy);
      if (JSON.stringify(actual) !== JSON.stringify(expected)) {
        throw new DatabaseError(
          `compacting ${db.path}: the copy's row counts ${JSON.stringify(actual)} differ from ${JSON.stringify(expected)}`,
          { path: db.path, hint: 'the file was left as it was; report this' },
        );
      }
    } finally {
      await copy.close();
    }
  } catch (error) {
    await db.run('DETACH DATABASE IF EXISTS tsync_compacted').catch(() => {});
    removeCopy(db.path);
    throw copyNotWritten(db.path, folder, error) ?? error;
  }
  restrictFile(target);
  renameSync(target, db.path);
  removeCopy(db.path);
}

/** What the file system says when it takes no more of the copy: a full disk, a quota, a file-size limit. */
const REFUSALS = ['No space left on device', 'Disk quota exceeded', 'File too large'];

/**
 * The DatabaseError of a copy the file system refused (`error`, or the commit error it caused), else
 * undefined: DuckDB's own words would come out as an unexpected error, some on several lines.
 */
function copyNotWritten(path: string, folder: string, error: unknown): DatabaseError | undefined {
  if (isOutOfMemory(error)) return undefined;
  const text = [error, (error as { cause?: unknown } | undefined)?.cause]
    .map((e) => (e instanceof Error ? e.message : String(e)))
    .join('\n');
  const refusal = REFUSALS.find((words) => text.includes(words));
  if (refusal === undefined && !/Could not write file/i.test(text)) return undefined;
  const mb = Math.ceil(statSync(path).size / 1e6);
  return new DatabaseError(
    `could not write the copy of ${path} in ${folder}: ${(refusal ?? 'a write failed').toLowerCase()}`,
    {
      path,
      hint: `the rewrite needs room beside the file for a copy of it (about ${mb} MB); free some and run the command again (the file is as it was before the rewrite)`,
      cause: error,
    },
  );
}

/** The private folder a compact of `path` makes its copy in. */
export function copyFolder(path: string): string {
  return `${path}.compact-tmp`;
}

/** Removes what a compact of `path` left beside it: its folder, or an older release's copy and WAL. */
export function removeCopy(path: string): void {
  const folder = copyFolder(path);
  rmSync(folder, { recursive: true, force: true });
  rmSync(`${folder}.wal`, { force: true });
}

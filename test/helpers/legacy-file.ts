/**
 * A DuckDB file as the release before 0.2 left it: `jobs` with its PRIMARY KEY and each record's
 * `raw` in it, made by the real runner with every shipped migration but 002, 005, 006 and 007, and filled
 * with what the real loader, run log and checkpoint store wrote into a current file beside it,
 * with a quarantined record and a deleted job, so every table holds rows.
 */
import { rmSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import { generateDataset } from '../../src/simulator/records/generate.js';
import { shippedMigrations } from '../../src/store/migrate.js';
import { openWriter } from '../../src/store/open-file.js';
import { DuckDbCheckpointStore } from '../../src/sync/checkpoints/duckdb-store.js';
import { recordRunFinish, recordRunStart } from '../../src/sync/kind-run.js';
import type { KindSummary } from '../../src/sync/types.js';
import { TABLES } from './db-fingerprint.js';
import { loadRecords } from './load.js';

/**
 * Migrations the release before 0.2 lacked: no key on the history tables, the records apart, and
 * every later one of the tables (expired jobs, erasures).
 */
export const UPGRADE_MIGRATIONS: readonly number[] = [2, 5, 6, 7, 8];
/** The columns of UPGRADE_MIGRATIONS after 006 (empty in an upgraded file): a fingerprint leaves them out. */
export const ADDED_COLUMNS: readonly string[] = ['expired_at', 'expired', 'erased_at'];
/** That release: `jobs` with its key and its `raw`, every other migration shipped applied. */
export const LEGACY_MIGRATIONS: readonly number[] = shippedMigrations()
  .map((m) => m.version)
  .filter((v) => !UPGRADE_MIGRATIONS.includes(v));
/** Every shipped migration: what an upgraded file carries. */
export const ALL_MIGRATIONS: readonly number[] = shippedMigrations().map((m) => m.version);

export interface LegacyFileOptions {
  readonly jobs: number;
  readonly utterancesPerJob?: number;
  readonly seed?: number;
}

export async function writeLegacyFile(path: string, options: LegacyFileOptions): Promise<void> {
  const current = `${path}.current.duckdb`;
  await writeCurrentFile(current, options);
  // That release created files in DuckDB's default storage format; a file keeps its format.
  const created = await DuckDBInstance.create(path);
  created.closeSync();
  const db = await openWriter(path, { migrations: LEGACY_MIGRATIONS });
  try {
    await db.run(`ATTACH '${current}' AS current_file (READ_ONLY)`);
    await db.transaction(async () => {
      // The columns that release had: later migrations add the others.
      const columns = async (table: string) => {
        const rows = await db.all<{ name: string }>(
          `SELECT column_name AS name FROM duckdb_columns()
           WHERE database_name = current_database() AND table_name = $table ORDER BY column_index`,
          { table },
        );
        return rows.map((r) => `"${r.name}"`);
      };
      const jobColumns = (await columns('jobs')).filter((c) => c !== '"raw"');
      await db.run(
        `INSERT INTO jobs BY NAME
         SELECT ${jobColumns.map((c) => `j.${c}`).join(', ')}, r.raw
         FROM current_file.jobs j JOIN current_file.job_records r ON r.job_id = j.id
         ORDER BY j.rowid`,
      );
      for (const table of TABLES.filter((t) => t !== 'jobs')) {
        const names = (await columns(table)).join(', ');
        await db.run(`INSERT INTO ${table} BY NAME SELECT ${names} FROM current_file.${table}`);
      }
    });
    await db.run('DETACH current_file');
  } finally {
    await db.close();
    rmSync(current, { force: true });
    rmSync(`${current}.wal`, { force: true });
  }
}

/** The rows of the legacy file, written by the real loader, run log and checkpoint store. */
async function writeCurrentFile(path: string, options: LegacyFileOptions): Promise<void> {
  const db = await openWriter(path);
  try {
    const records = generateDataset({
      seed: options.seed ?? 13,
      preRecorded: Math.ceil(options.jobs / 2),
      live: Math.floor(options.jobs / 2),
      utterancesPerJob: options.utterancesPerJob ?? 6,
      wordsPerUtterance: 8,
    });
    const syncedAt = new Date('2026-11-01T00:00:00.000Z');
    // An invalid record goes to the quarantine; the rest loads.
    const bad = { ...records[0], id: 'bad-record', created_at: 'not a date' };
    await loadRecords(db, [...records, bad], syncedAt);
    // A changed record: its row and children replaced, as a later run would.
    const changed = { ...records[1], custom_metadata: { edited: true } };
    await loadRecords(db, [changed], new Date('2026-11-02T00:00:00.000Z'));
    await db.run('UPDATE jobs SET deleted_at = now() WHERE id = $id', { id: String(records[2]?.id) });
    const run = runSummary();
    await recordRunStart(db, run);
    await recordRunFinish(db, { ...run, inserted: records.length, finishedAt: run.startedAt });
    const store = new DuckDbCheckpointStore(db);
    await store.save('live', { watermark: run.windowBefore, pending: [], slice: null, lastRun: run });
  } finally {
    await db.close();
  }
}

function runSummary(): KindSummary {
  const at = '2026-11-01T00:00:00.000Z';
  return {
    runId: 'legacy-run',
    kind: 'live',
    mode: 'incremental',
    windowAfter: null,
    windowBefore: at,
    pages: 1,
    requests: 1,
    retries: 0,
    pauses: 0,
    jobsFetched: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    quarantined: 1,
    deleted: 0,
    expired: 0,
    restored: 0,
    words: 0,
    pendingRechecked: 0,
    restarts: 0,
    startedAt: at,
    finishedAt: at,
    outcome: 'ok',
  };
}

/**
 * Applies sql/NNN_name.sql migrations in order, each in one transaction with its `schema_migrations`
 * row, so a file is never left half-migrated. Append-only: a shipped migration is never edited.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { DatabaseError } from '../errors.js';
import { sqlDir } from '../util/paths.js';
import { JOBS_GROUP_RAW_BYTES } from './file/merge-row-groups.js';
import { commitWithCheckpoint } from './file/open-instance.js';
import { copyRecordsApartBatch, recordsApartBatches, resetRecordsApart } from './statements/file-upkeep.js';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

const MIGRATION_FILE = /^(\d{3,})_([\w-]+)\.sql$/;

let cached: readonly Migration[] | undefined;

/** The migrations shipped with this version, ordered by version. */
export function shippedMigrations(): readonly Migration[] {
  if (cached) return cached;
  const dir = sqlDir();
  const found: Migration[] = [];
  for (const file of readdirSync(dir)) {
    const match = MIGRATION_FILE.exec(file);
    if (!match) continue;
    found.push({
      version: Number(match[1]),
      name: match[2] ?? file,
      sql: readFileSync(join(dir, file), 'utf8'),
    });
  }
  found.sort((a, b) => a.version - b.version);
  cached = Object.freeze(found);
  return cached;
}

/**
 * The versions recorded in the file, or undefined when it has no `schema_migrations` (not a file of
 * transcript-sync yet): the catalog is asked only when reading the table fails.
 */
async function recordedVersions(connection: DuckDBConnection): Promise<number[] | undefined> {
  try {
    const reader = await connection.runAndReadAll('SELECT version FROM schema_migrations ORDER BY version');
    return reader.getRowsJS().map((row) => Number(row[0]));
  } catch (error) {
    const tables = await connection
      .runAndReadAll(
        "SELECT 1 FROM information_schema.tables WHERE table_name = 'schema_migrations' AND table_schema = 'main'",
      )
      .catch(() => undefined);
    if (tables?.currentRowCount === 0) return undefined;
    throw error;
  }
}

export interface MigrateOptions {
  /** Only these versions are applied (a test builds an older release's file); default every shipped one. */
  readonly versions?: readonly number[] | undefined;
  /** Called before a migration runs on a file that already holds tables (an upgrade, not a creation). */
  readonly onUpgrade?: ((migration: Migration) => void) | undefined;
  /** The writer's WAL threshold (open-instance.ts), for the commits of a migration's copy. */
  readonly walThreshold: string;
  /** Hears of each batch a migration's copy has done, of how many (the records of 006). */
  readonly onBatch?: ((copied: number, batches: number) => void) | undefined;
}

/**
 * jobs.raw copied into job_records before 006 drops it (sql/006_records_apart.sql): a batch of about
 * JOBS_GROUP_RAW_BYTES a transaction, committed straight into the file (one statement over every
 * record would not fit memory_limit); an interrupted copy is emptied and done again.
 */
async function copyRecordsApart(
  connection: DuckDBConnection,
  walThreshold: string,
  onBatch: (copied: number, batches: number) => void,
): Promise<void> {
  await resetRecordsApart(connection);
  const batches = await recordsApartBatches(connection, { batchBytes: JOBS_GROUP_RAW_BYTES });
  for (const [index, batch] of batches.entries()) {
    await connection.run('BEGIN TRANSACTION');
    try {
      await copyRecordsApartBatch(connection, batch);
      await commitWithCheckpoint(connection, walThreshold);
    } catch (error) {
      await connection.run('ROLLBACK').catch(() => {});
      throw error;
    }
    onBatch(index + 1, batches.length);
  }
}

/**
 * Work a migration needs done before its transaction, in transactions of its own: each must be
 * idempotent, as a kill before the migration commits runs it again at the next open.
 */
const BEFORE = new Map([[6, copyRecordsApart]]);

/** Applies every shipped migration the file lacks. Returns the versions applied now. */
export async function migrate(
  connection: DuckDBConnection,
  path: string,
  options: MigrateOptions,
): Promise<number[]> {
  const recorded = await recordedVersions(connection);
  if (recorded === undefined) {
    await connection.run(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMPTZ NOT NULL)',
    );
  }
  const applied = new Set(recorded);
  assertNotNewer(applied, path);
  const done: number[] = [];
  const upgrade = applied.size > 0;
  for (const migration of shippedMigrations()) {
    if (applied.has(migration.version)) continue;
    if (options.versions && !options.versions.includes(migration.version)) continue;
    if (upgrade) options.onUpgrade?.(migration);
    try {
      await BEFORE.get(migration.version)?.(connection, options.walThreshold, options.onBatch ?? (() => {}));
    } catch (error) {
      throw migrationFailed(migration, path, error);
    }
    await connection.run('BEGIN TRANSACTION');
    try {
      await connection.run(migration.sql);
      await connection.run('INSERT INTO schema_migrations VALUES ($1, $2, now())', [
        migration.version,
        migration.name,
      ]);
      await connection.run('COMMIT');
    } catch (error) {
      await connection.run('ROLLBACK').catch(() => {});
      throw migrationFailed(migration, path, error);
    }
    done.push(migration.version);
  }
  return done;
}

function migrationFailed(migration: Migration, path: string, cause: unknown): DatabaseError {
  return new DatabaseError(`migration ${migration.version}_${migration.name} failed on ${path}`, {
    path,
    hint: 'the file was left as it was before the migration; report this with the message below',
    cause,
  });
}

/** For a read-only open: the file must already carry every shipped migration. */
export async function assertMigrated(connection: DuckDBConnection, path: string): Promise<void> {
  const versions = await recordedVersions(connection);
  if (versions === undefined) {
    throw new DatabaseError(`${path} has no transcript-sync tables yet`, {
      path,
      hint: 'run `transcript-sync sync` first to create and fill it',
    });
  }
  const applied = new Set(versions);
  assertNotNewer(applied, path);
  const missing = shippedMigrations().filter((m) => !applied.has(m.version));
  if (missing.length > 0) {
    throw new DatabaseError(
      `${path} was written by an older transcript-sync (schema lacks migration ${missing[0]?.version})`,
      { path, hint: 'run `transcript-sync sync` once to upgrade it, then read it again' },
    );
  }
}

function assertNotNewer(applied: ReadonlySet<number>, path: string): void {
  const known = new Set(shippedMigrations().map((m) => m.version));
  const unknown = [...applied].filter((v) => !known.has(v));
  if (unknown.length > 0) {
    throw new DatabaseError(
      `${path} was written by a newer transcript-sync (schema version ${Math.max(...unknown)})`,
      { path, hint: 'upgrade transcript-sync, or point --db at another file' },
    );
  }
}

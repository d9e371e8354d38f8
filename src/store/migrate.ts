/**
 * Applies sql/NNN_name.sql migrations in order, each in one transaction with its `schema_migrations`
 * row, so a file is never left half-migrated. Append-only: a shipped migration is never edited.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { DatabaseError } from '../errors.js';
import type { Logger } from '../log.js';
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
  cached ??= Object.freeze(
    readdirSync(sqlDir())
      .flatMap((file) => {
        const [, version, name] = MIGRATION_FILE.exec(file) ?? [];
        if (version === undefined || name === undefined) return [];
        return [{ version: Number(version), name, sql: readFileSync(join(sqlDir(), file), 'utf8') }];
      })
      .sort((a, b) => a.version - b.version),
  );
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
  /** The writer's WAL threshold (open-instance.ts), for the commits of a migration's copy. */
  readonly walThreshold: string;
  /** Hears of an upgrade (a migration on a file that holds tables) and of a long copy's progress. */
  readonly logger?: Logger;
}

/** How often a migration's long copy logs its progress, ms; it logs its last batch too. */
const PROGRESS_EVERY_MS = 5_000;

/** `fn` between BEGIN and `commit` (COMMIT by default); a throw rolls back and is rethrown. */
async function inTransaction(
  connection: DuckDBConnection,
  fn: () => Promise<unknown>,
  commit: () => Promise<unknown> = () => connection.run('COMMIT'),
): Promise<void> {
  await connection.run('BEGIN TRANSACTION');
  try {
    await fn();
    await commit();
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => {});
    throw error;
  }
}

/**
 * jobs.raw copied into job_records before 006 drops it (sql/006_records_apart.sql), outside its
 * transaction: a batch of about JOBS_GROUP_RAW_BYTES a transaction, committed straight into the file
 * (one statement over every record would not fit memory_limit). Idempotent, as a kill before 006
 * commits runs it again at the next open: an interrupted copy is emptied and done again.
 */
async function copyRecordsApart(connection: DuckDBConnection, path: string, options: MigrateOptions) {
  await resetRecordsApart(connection);
  const batches = await recordsApartBatches(connection, { batchBytes: JOBS_GROUP_RAW_BYTES });
  let logged = Date.now();
  for (const [index, batch] of batches.entries()) {
    await inTransaction(
      connection,
      () => copyRecordsApartBatch(connection, batch),
      () => commitWithCheckpoint(connection, options.walThreshold),
    );
    const copied = index + 1;
    if (copied < batches.length && Date.now() - logged < PROGRESS_EVERY_MS) continue;
    logged = Date.now();
    options.logger?.info(
      { db: path, copied, batches: batches.length },
      `upgrading ${path}: copied ${copied} of ${batches.length} batches of records`,
    );
  }
}

/** Applies every shipped migration the file lacks, and logs those it applied. */
export async function migrate(
  connection: DuckDBConnection,
  path: string,
  options: MigrateOptions,
): Promise<void> {
  const started = Date.now();
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
    if (upgrade) {
      const name = `${String(migration.version).padStart(3, '0')}_${migration.name}`;
      options.logger?.info(
        { db: path, migration: name },
        'upgrading %s: migration %s runs once (a big file takes a while; interrupted, it runs again at the next open)',
        path,
        name,
      );
    }
    try {
      if (migration.version === 6) await copyRecordsApart(connection, path, options);
      await inTransaction(connection, async () => {
        await connection.run(migration.sql);
        await connection.run('INSERT INTO schema_migrations VALUES ($1, $2, now())', [
          migration.version,
          migration.name,
        ]);
      });
    } catch (error) {
      throw new DatabaseError(`migration ${migration.version}_${migration.name} failed on ${path}`, {
        path,
        hint: 'the file was left as it was before the migration; report this with the message below',
        cause: error,
      });
    }
    done.push(migration.version);
  }
  if (done.length > 0)
    options.logger?.info(
      { db: path, migrations: done, ms: Date.now() - started },
      'database schema migrated',
    );
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

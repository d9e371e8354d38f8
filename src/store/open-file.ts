/** Opening a transcript-sync file for writing (migrated, with the loader's staging) or read-only. */
import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { type Logger, silentLogger } from '../log.js';
import { DEFAULT_MEMORY, type DuckDbMemory, planMemory } from '../memory/budget.js';
import { planReaderMemory, type ReaderOptions } from '../memory/reader-memory.js';
import { Database, type DatabaseParts } from './database.js';
import { pidAlive } from './file/lock-file.js';
import { compactIfFragmented } from './file/merge-row-groups.js';
import {
  acquireInstance,
  createMemoryInstance,
  damagedFileError,
  discardCreatedFile,
  mibSetting,
  releaseInstance,
  type SharedInstance,
} from './file/open-instance.js';
import { assertMigrated, migrate } from './migrate.js';
import { createParseStaging, createWriterStaging } from './statements/loader.js';

/** ms an open waits for a file another process holds (`--lock-wait`). */
export const DEFAULT_LOCK_WAIT_MS = 5_000;

interface OpenOptions {
  /** How long to wait for a file another process holds, in ms; default DEFAULT_LOCK_WAIT_MS. */
  readonly lockWaitMs?: number;
}

export interface ReadOnlyOptions extends OpenOptions, ReaderOptions {
  /** The memory budget, bytes (--memory; default 512 MB), as planReaderMemory takes it. */
  readonly memory?: number;
}

export interface WriterOptions extends OpenOptions {
  readonly logger?: Logger;
  /** DuckDB's memory settings (src/memory/budget.ts); the default budget's if unset. */
  readonly memory?: DuckDbMemory;
  /** Small row groups a table may collect before the close merges them; Infinity: it only checkpoints. */
  readonly compactAfter?: number;
  /** Migration versions to apply (tests build files of an older release); default every shipped one. */
  readonly migrations?: readonly number[];
}

/** A writer's staging connections: one parses a batch (src/load/parse-batch.ts), the other takes the next. */
const STAGING_CONNECTIONS = 2;

/** `path` opened for writing, migrated, with the loader's staging in place; close() merges and checkpoints. */
export async function openWriter(path: string, options: WriterOptions = {}): Promise<Database> {
  return new Database(await writerParts(resolve(path), options, true));
}

/** Migrated first when `migrating` (an open, not a reopen). */
async function writerParts(full: string, options: WriterOptions, migrating: boolean): Promise<DatabaseParts> {
  const logger = options.logger ?? silentLogger;
  const memory = options.memory ?? planMemory(DEFAULT_MEMORY, 1).duckdb;
  const shared = await acquireInstance(full, options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS, { writer: memory });
  return sharedParts(full, shared, async (connection) => {
    const walThreshold = mibSetting(memory.walAutocheckpoint);
    if (migrating) await migrate(connection, full, { versions: options.migrations, walThreshold, logger });
    // The loader's staging tables (temp: each connection's) are made here, outside any transaction,
    // so that no rollback drops them and no batch pays a statement to make sure they exist.
    await createWriterStaging(connection);
    const staging: DuckDBConnection[] = [];
    try {
      for (let i = 0; i < STAGING_CONNECTIONS; i++) {
        staging.push(await shared.instance.connect());
        await createParseStaging(staging[i] as DuckDBConnection);
      }
    } catch (error) {
      for (const made of staging) made.closeSync();
      throw error;
    }
    return {
      staging,
      walThreshold,
      beforeClose: (db: Database) => closeWriter(db, shared, options.compactAfter, logger),
      reopen: () => writerParts(full, options, false),
      sole: () => shared.refs === 1,
      logger,
    };
  });
}

/** `path` opened read-only, its schema checked current, within `memory`; its spill folder goes with it. */
export async function openReadOnly(path: string, options: ReadOnlyOptions = {}): Promise<Database> {
  const full = resolve(path);
  removeStaleReaderTemps(full);
  const reader = planReaderMemory(options.memory ?? DEFAULT_MEMORY, full, options);
  const shared = await acquireInstance(full, options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS, { reader });
  const parts = await sharedParts(full, shared, async (connection) => {
    await assertMigrated(connection, full);
    return {};
  });
  return new Database(parts);
}

/** An empty database in memory within a reader's `memory`, for SQL over files alone; `label` names it. */
export async function openInMemory(label: string, options: ReadOnlyOptions = {}): Promise<Database> {
  const reader = planReaderMemory(options.memory ?? DEFAULT_MEMORY, join(tmpdir(), 'tsync-files'));
  const instance = await createMemoryInstance(reader);
  const release = () => {
    instance.closeSync();
    rmSync(reader.tempDirectory, { recursive: true, force: true });
  };
  try {
    const connection = await instance.connect();
    return new Database({ path: label, connection, connect: () => instance.connect(), release });
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * The parts of a Database on a new connection of `shared`, with what `setup` adds; a failure gives the
 * instance back and removes a file this open created.
 */
async function sharedParts(
  full: string,
  shared: SharedInstance,
  setup: (connection: DuckDBConnection) => Promise<Partial<DatabaseParts>>,
): Promise<DatabaseParts> {
  let connection: DuckDBConnection | undefined;
  try {
    connection = await shared.instance.connect();
    return {
      path: full,
      connection,
      connect: () => shared.instance.connect(),
      release: () => releaseInstance(full, shared),
      ...(await setup(connection)),
    };
  } catch (error) {
    connection?.closeSync();
    releaseInstance(full, shared);
    if (shared.created && shared.refs === 0) discardCreatedFile(full);
    throw damagedFileError(full, error) ?? error;
  }
}

/** Removes the spill folders (`<file>.tmp-<pid>`) beside `path` of reading processes that are gone. */
function removeStaleReaderTemps(path: string): void {
  const prefix = `${basename(path)}.tmp-`;
  let names: string[];
  try {
    names = readdirSync(dirname(path)).filter((name) => name.startsWith(prefix));
  } catch {
    return; // an unreadable folder: DuckDB says what is wrong with the file itself
  }
  for (const name of names) {
    const pid = Number(name.slice(prefix.length));
    if (!Number.isInteger(pid) || pid <= 0 || pidAlive(pid)) continue;
    rmSync(join(dirname(path), name), { recursive: true, force: true });
  }
}

/** A writer's close, before its connection goes: merge small row groups when due, then checkpoint. */
async function closeWriter(
  db: Database,
  shared: SharedInstance,
  compactAfter: number | undefined,
  logger: Logger,
): Promise<void> {
  await compactIfFragmented(db, compactAfter).catch((error: unknown) =>
    logger.debug({ err: error }, 'could not check whether row groups need merging'),
  );
  if (shared.refs !== 1) return;
  // The last user's close checkpoints the WAL on DuckDB's threads: closeSync would do it on the
  // event loop (a worker's /metrics, /healthz and read socket stall for it), and does if this fails.
  await db
    .run('CHECKPOINT')
    .catch((error: unknown) => logger.debug({ err: error }, 'checkpoint before close failed'));
}

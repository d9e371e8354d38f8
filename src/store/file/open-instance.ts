/**
 * Opens (or shares) the one DuckDBInstance of a file in this process, retrying until `lockWaitMs`
 * while another process holds it (then a DatabaseError, `busy: true`). A directory we create is 0700,
 * the file 0600, set before anything is written.
 */
import { accessSync, chmodSync, constants, existsSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { DatabaseError } from '../../errors.js';
import type { DuckDbMemory } from '../../memory/budget.js';
import type { ReaderMemory } from '../../memory/reader-memory.js';
import { makeFolderSync } from '../../util/make-folder.js';
import { assertDatabaseFile, deniedFolderError } from '../../util/path-checks.js';
import { duckdb } from '../duckdb.js';

export interface SharedInstance {
  readonly instance: DuckDBInstance;
  readonly readOnly: boolean;
  /** Whether this open created the file (so a failed first open may remove it again). */
  readonly created: boolean;
  /** A read-only open's spill folder, removed when the instance closes. */
  readonly tempDirectory?: string;
  refs: number;
}

const instances = new Map<string, SharedInstance>();

/** The storage format of new files: long strings compressed. A file keeps its format until `compact`. */
export const STORAGE_FORMAT = 'v1.2.0';

/** No query may ever try the network to fetch an extension (json, parquet, icu are built in). */
const BASE_OPTIONS = { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' } as const;

/** A read-only open's settings: a pool under the reader's budget, spilling to the reader's own folder. */
function readerSettings(memory: ReaderMemory): Record<string, string> {
  return {
    memory_limit: mibSetting(memory.memoryLimit),
    threads: String(memory.threads),
    temp_directory: memory.tempDirectory,
    allocator_background_threads: 'true',
  };
}

/** An unshared empty database in memory (SQL over files); the caller closes it, removes its spill folder. */
export function createMemoryInstance(reader: ReaderMemory): Promise<DuckDBInstance> {
  return duckdb().DuckDBInstance.create(':memory:', { ...BASE_OPTIONS, ...readerSettings(reader) });
}

/** `bytes` as DuckDB's size settings (memory_limit, wal_autocheckpoint) take it: whole MiB. */
export function mibSetting(bytes: number): string {
  return `${Math.floor(bytes / 2 ** 20)}MiB`;
}

/**
 * A writable open's settings: a commit that checkpoints skips the WAL (`auto_checkpoint_skip_wal_threshold`
 * 0: docs/decisions/0009-a-commit-written-into-the-file-once.md); no merging of row groups at
 * checkpoints (`max_vacuum_tasks` 0): merge-row-groups.ts does it.
 */
function writerSettings(memory: DuckDbMemory): Record<string, string> {
  return {
    memory_limit: mibSetting(memory.memoryLimit),
    wal_autocheckpoint: mibSetting(memory.walAutocheckpoint),
    auto_checkpoint_skip_wal_threshold: '0',
    threads: String(memory.threads),
    allocator_background_threads: 'true',
    max_vacuum_tasks: '0',
    storage_compatibility_version: STORAGE_FORMAT,
  };
}

/**
 * A COMMIT straight into the file: at a WAL threshold of zero DuckDB checkpoints, skipping the WAL
 * (writerSettings) unless a reader's transaction needs the old data. `walThreshold` (in MiB, never
 * input: SET binds no value) is set back after.
 */
export async function commitWithCheckpoint(
  connection: DuckDBConnection,
  walThreshold: string,
): Promise<void> {
  if (!/^\d+MiB$/.test(walThreshold)) throw new Error(`not a WAL threshold: ${walThreshold}`);
  await connection.run("SET wal_autocheckpoint = '0B'");
  try {
    await connection.run('COMMIT');
  } finally {
    await connection.run(`SET wal_autocheckpoint = '${walThreshold}'`);
  }
}

/** First retry delay while another process holds the file, in ms; doubles up to RETRY_MAX_MS. */
const RETRY_START_MS = 50;
const RETRY_MAX_MS = 500;

/** Opens `path` or shares its open instance, which keeps its first open's settings. */
export async function acquireInstance(
  path: string,
  lockWaitMs: number,
  use: { readonly reader: ReaderMemory } | { readonly writer: DuckDbMemory },
): Promise<SharedInstance> {
  const readOnly = 'reader' in use;
  const shared = instances.get(path);
  if (shared) {
    if (shared.readOnly && !readOnly) {
      throw new DatabaseError(`${path} is already open read-only in this process`, {
        path,
        hint: 'close the read-only handle before opening it for writing',
      });
    }
    shared.refs += 1;
    return shared;
  }
  assertDatabaseFile(path);
  if (!readOnly) assertWritableDir(path);
  const created = !readOnly && !existsSync(path);
  if (created) makePrivateDir(dirname(path));
  const options =
    'reader' in use
      ? { ...BASE_OPTIONS, access_mode: 'READ_ONLY', ...readerSettings(use.reader) }
      : { ...BASE_OPTIONS, ...writerSettings(use.writer) };
  const tempDirectory = 'reader' in use ? use.reader.tempDirectory : undefined;
  let instance: DuckDBInstance;
  try {
    instance = await createWithRetry(path, options, readOnly, lockWaitMs);
  } catch (error) {
    if (tempDirectory) removeSpillFolder(tempDirectory);
    throw error;
  }
  if (created) restrictFile(path);
  const entry: SharedInstance = { instance, readOnly, created, tempDirectory, refs: 1 };
  instances.set(path, entry);
  return entry;
}

export function releaseInstance(path: string, entry: SharedInstance): void {
  entry.refs -= 1;
  if (entry.refs > 0) return;
  instances.delete(path);
  entry.instance.closeSync();
  restrictFile(`${path}.wal`);
  if (entry.tempDirectory) removeSpillFolder(entry.tempDirectory);
}

/** Never fails: in a folder this user may not enter it cannot be reached, and the open's error says why. */
function removeSpillFolder(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {}
}

/** Removes a file this process just created and could not finish setting up. */
export function discardCreatedFile(path: string): void {
  rmSync(path, { force: true });
  rmSync(`${path}.wal`, { force: true });
}

/** Owner-only mode for a file DuckDB may have created (the WAL comes and goes); missing is fine. */
export function restrictFile(path: string): void {
  try {
    chmodSync(path, 0o600);
  } catch {}
}

/** Creates the directory of a new database file, owner-only: the outermost one it made, or undefined. */
export function makePrivateDir(dir: string): string | undefined {
  if (existsSync(dir)) return undefined;
  try {
    const created = makeFolderSync(dir, 0o700);
    chmodSync(dir, 0o700); // mkdir's mode is filtered by the umask
    return created;
  } catch (error) {
    throw new DatabaseError(`cannot create the directory ${dir} for the database`, {
      path: dir,
      hint: 'check its permissions, or point --db (TSYNC_DB) at a writable place',
      cause: error,
    });
  }
}

/**
 * A writer's `path` behind a folder this user may not enter is refused naming that folder, before
 * anything is made (a file there cannot even be seen to exist).
 */
export function assertWriterCanEnter(path: string): void {
  const denied = deniedFolderError(path, 'open', 'a writable place');
  if (denied) throw denied;
}

/**
 * DuckDB writes `<file>.wal` beside the file at its first commit: a folder it cannot write is refused,
 * one it cannot enter named first. A folder still to be made passes (its maker says why it cannot).
 */
function assertWritableDir(path: string): void {
  assertWriterCanEnter(path);
  const dir = dirname(path);
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (error) {
    if (!existsSync(dir)) return; // DuckDB names the missing directory better
    throw new DatabaseError(
      `cannot write to ${dir}, where the database keeps its write-ahead log (${path}.wal)`,
      {
        path,
        hint: 'make the directory writable for this user, or point --db (TSYNC_DB) at a writable place',
        cause: error,
      },
    );
  }
}

async function createWithRetry(
  path: string,
  options: Record<string, string>,
  readOnly: boolean,
  lockWaitMs: number,
): Promise<DuckDBInstance> {
  const deadline = Date.now() + lockWaitMs;
  let delay = RETRY_START_MS;
  for (;;) {
    try {
      return await duckdb().DuckDBInstance.create(path, options);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!/could not set lock|conflicting lock/i.test(message))
        throw openError(path, readOnly, message, error);
      if (Date.now() + delay > deadline) throw busyError(path, lockWaitMs, message, error);
      await sleep(delay);
      delay = Math.min(delay * 2, RETRY_MAX_MS);
    }
  }
}

function busyError(path: string, lockWaitMs: number, message: string, cause: unknown): DatabaseError {
  const holder = /PID (\d+)/.exec(message)?.[1];
  return new DatabaseError(
    `${path} is held by another process${holder ? ` (PID ${holder})` : ''}: a sync is probably running`,
    {
      path,
      retryable: true,
      busy: true,
      hint: `wait for it to finish and try again, or raise --lock-wait (waited ${lockWaitMs} ms)`,
      cause,
    },
  );
}

function openError(path: string, readOnly: boolean, message: string, cause: unknown): DatabaseError {
  const fail = (what: string, hint: string) => new DatabaseError(what, { path, hint, cause });
  if (readOnly && /does not exist/i.test(message))
    return fail(`${path} does not exist yet`, 'run `transcript-sync sync` first to create and fill it');
  const damaged = damagedFileError(path, cause);
  if (damaged) return damaged;
  const denied = readOnly && /permission denied/i.test(message);
  const deniedFolder = denied ? deniedFolderError(path, 'read', 'a readable copy', cause) : undefined;
  if (deniedFolder) return deniedFolder;
  if (denied) {
    return fail(
      `cannot read ${path}: permission denied`,
      'make the file readable for this user (this command only reads it), or point --db (TSYNC_DB) at a readable copy',
    );
  }
  if (/permission denied|read-only file system/i.test(message)) {
    return fail(
      `cannot open ${path}: permission denied`,
      'check the file and directory permissions, or point --db (TSYNC_DB) at a writable place',
    );
  }
  return fail(`cannot open ${path}: ${message}`, 'check the path given by --db (TSYNC_DB)');
}

const DAMAGED =
  /not a valid DuckDB database|could not read enough bytes|attempted to read \d+ bytes|Corrupt database file|checksum .* does not match/i;

/**
 * The DatabaseError of a damaged `path` (not a DuckDB file, cut short, a block's checksum wrong) when
 * `error` says so, else undefined: DuckDB says it at the open, or when a statement reads the block.
 */
export function damagedFileError(path: string, error: unknown): DatabaseError | undefined {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof DatabaseError || !DAMAGED.test(message)) return undefined;
  return new DatabaseError(`${path} is damaged or not a DuckDB database`, {
    path,
    hint: 'move it aside (keep it for inspection) and run a sync to rebuild it, or point --db at another file',
    cause: error,
  });
}

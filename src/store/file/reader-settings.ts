/**
 * The settings every open takes, and a reader's (read-only opens, the empty database in memory). A
 * reading spills to `<file>.tmp-<pid>`; the next reading removes those of dead processes.
 */
import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { DuckDBInstance } from '@duckdb/node-api';
import type { ReaderMemory } from '../../memory/reader-memory.js';
import { duckdb } from '../duckdb.js';
import { pidAlive } from './lock-file.js';

/** No query may ever try the network to fetch an extension (json, parquet, icu are built in). */
export const BASE_OPTIONS = {
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
} as const;

/** A read-only open's settings: a pool under the reader's budget, spilling to the reader's own folder. */
export function readerSettings(memory: ReaderMemory): Record<string, string> {
  return {
    memory_limit: `${Math.floor(memory.memoryLimit / 2 ** 20)}MiB`,
    threads: String(memory.threads),
    temp_directory: memory.tempDirectory,
    allocator_background_threads: 'true',
  };
}

/** An unshared empty database in memory (SQL over files); the caller closes it, removes its spill folder. */
export async function createMemoryInstance(reader: ReaderMemory): Promise<DuckDBInstance> {
  return duckdb().DuckDBInstance.create(':memory:', { ...BASE_OPTIONS, ...readerSettings(reader) });
}

/** Removes the spill folders beside `path` of reading processes that are gone. */
export function removeStaleReaderTemps(path: string): void {
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

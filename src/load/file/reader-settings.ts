/** The DuckDB settings every open takes, and a read-only open's (open-instance.ts). */
import type { ReaderMemory } from '../../memory/reader-memory.js';

/** No query may ever try the network to fetch an extension (json, parquet, icu are built in). */
export const BASE_OPTIONS = {
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
} as const;

/**
 * Settings of a read-only open, from the reader's memory (src/memory/reader-memory.ts): a buffer pool
 * under the budget, what a query needs beyond it spilled to the reader's own folder, and the
 * allocator's background threads, which hand freed memory back to the system.
 */
export function readerSettings(memory: ReaderMemory): Record<string, string> {
  return {
    memory_limit: `${Math.floor(memory.memoryLimit / 2 ** 20)}MiB`,
    threads: String(memory.threads),
    temp_directory: memory.tempDirectory,
    allocator_background_threads: 'true',
  };
}

/**
 * DuckDB's memory for a reading process (verify, report, status, query, export): derived from the
 * same budget as a sync's (--memory, TSYNC_MEMORY; budget.ts). A reading holds no pages, so the
 * budget is the fixed part and DuckDB's buffer pool; what a query needs beyond its `memory_limit`
 * (a big aggregate, a join, a sort) spills to a folder beside the file, `<file>.tmp-<pid>`,
 * instead of growing the process. docs/decisions/0031-readers-spill-within-the-budget.md has the
 * figures behind the constants.
 */
import { availableParallelism } from 'node:os';

const MiB = 2 ** 20;

/** RSS of a reading before DuckDB's buffer pool: Node, libduckdb and its threads, our modules. */
const READER_FIXED_BYTES = 128 * MiB;

/**
 * Share of the rest (budget minus the fixed part) that becomes `memory_limit`. DuckDB's RSS
 * overshoots its limit (allocations outside the buffer pool, the allocator's slack, the result
 * handed to JavaScript), so the limit is set well under the rest.
 */
const LIMIT_SHARE = 0.5;

/** Smallest `memory_limit`: under it a spilling aggregate of two threads runs out of memory (32 MiB did). */
const MIN_LIMIT_BYTES = 64 * MiB;

/** Each DuckDB thread gets at least this much of the buffer pool; more threads would only spill more. */
const BYTES_PER_THREAD = 48 * MiB;

export interface ReaderMemory {
  /** DuckDB's buffer pool, bytes (`memory_limit`). */
  readonly memoryLimit: number;
  /** DuckDB's worker threads (`threads`). */
  readonly threads: number;
  /** Where DuckDB spills (`temp_directory`): `<file>.tmp-<pid>`, removed when the file closes. */
  readonly tempDirectory: string;
}

/** DuckDB's memory for reading the file at `path` (absolute) within `budget` bytes. */
export function planReaderMemory(budget: number, path: string, pid: number = process.pid): ReaderMemory {
  const memoryLimit = Math.max(MIN_LIMIT_BYTES, Math.floor((budget - READER_FIXED_BYTES) * LIMIT_SHARE));
  return Object.freeze({
    memoryLimit,
    threads: Math.min(availableParallelism(), Math.max(1, Math.floor(memoryLimit / BYTES_PER_THREAD))),
    tempDirectory: readerTempDirectory(path, pid),
  });
}

/** The spill folder of process `pid` reading `path`. */
export function readerTempDirectory(path: string, pid: number): string {
  return `${path}.tmp-${pid}`;
}

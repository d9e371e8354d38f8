/**
 * DuckDB's memory for a reading process (verify, report, status, query, export): derived from the
 * same budget as a sync's (--memory, TSYNC_MEMORY; budget.ts). A reading holds no pages, so the
 * budget is the fixed part and DuckDB's buffer pool; what a query needs beyond its `memory_limit`
 * (a big aggregate, a join, a sort) spills to a folder beside the file, `<file>.tmp-<pid>`,
 * instead of growing the process. docs/decisions/0016-readers-within-the-budget.md has the
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

/**
 * Share of the rest that becomes `memory_limit` of a reading that writes Parquet (export, the
 * publish after a sync). Such a reading scans every table once, and the buffer pool fills to its
 * limit with the blocks it read whatever the limit, so the peak follows the limit, and a smaller
 * one is no slower (docs/decisions/0014-published-dataset.md). Small row
 * groups (parquet-copy.ts, PARQUET_ROW_GROUP_BYTES) keep the Parquet writer within it, and the wide
 * tables are copied a partition at a time on one thread (docs/decisions/0014-published-dataset.md).
 */
const PARQUET_LIMIT_SHARE = 0.25;

/** Smallest `memory_limit`: under it a spilling aggregate of two threads runs out of memory (32 MiB did). */
const MIN_LIMIT_BYTES = 64 * MiB;

/** Each DuckDB thread gets at least this much of the buffer pool; more threads would only spill more. */
const BYTES_PER_THREAD = 48 * MiB;

/**
 * `memory_limit` of a reading of every `raw` that the budget's reading could not do (verify
 * --hashes, src/cli/commands/verify.ts; compact's copy), at least: DuckDB decompresses `raw` a
 * vector of up to 2,048 records of a row group at once, which a full row group of big records
 * (a file compacted by an earlier release, or copied whole) makes larger than the budget, and fails
 * rather than spill below it. A back-fill's row groups hold a commit's records, and those `compact`
 * and the merge of small row groups write, about JOBS_GROUP_RAW_BYTES
 * (src/store/file/merge-row-groups.ts): both fit the budget
 * (docs/decisions/0007-small-row-groups-merged-by-moving-rows.md). One thread reads one vector.
 */
export const RAW_LIMIT_BYTES = 1024 * MiB;

export interface ReaderOptions {
  /** The reading reads every `raw` after the budget's reading could not: one thread, a ceiling rather than a share. */
  readonly readsRaw?: boolean;
  /** The reading writes Parquet (export, the publish): PARQUET_LIMIT_SHARE of the rest. */
  readonly writesParquet?: boolean;
  /** The process whose spill folder it is; default this one. */
  readonly pid?: number;
}

export interface ReaderMemory {
  /** DuckDB's buffer pool, bytes (`memory_limit`). */
  readonly memoryLimit: number;
  /** DuckDB's worker threads (`threads`). */
  readonly threads: number;
  /** Where DuckDB spills (`temp_directory`): `<file>.tmp-<pid>`, removed when the file closes. */
  readonly tempDirectory: string;
}

/** DuckDB's memory for reading the file at `path` (absolute) within `budget` bytes. */
export function planReaderMemory(budget: number, path: string, options: ReaderOptions = {}): ReaderMemory {
  const share = Math.max(MIN_LIMIT_BYTES, Math.floor((budget - READER_FIXED_BYTES) * LIMIT_SHARE));
  const parquet = Math.max(MIN_LIMIT_BYTES, Math.floor((budget - READER_FIXED_BYTES) * PARQUET_LIMIT_SHARE));
  const memoryLimit = options.readsRaw
    ? Math.max(share, RAW_LIMIT_BYTES)
    : options.writesParquet
      ? parquet
      : share;
  const threads = Math.min(availableParallelism(), Math.max(1, Math.floor(share / BYTES_PER_THREAD)));
  return Object.freeze({
    memoryLimit,
    threads: options.readsRaw ? 1 : threads,
    tempDirectory: readerTempDirectory(path, options.pid ?? process.pid),
  });
}

/** The spill folder of process `pid` reading `path`. */
export function readerTempDirectory(path: string, pid: number): string {
  return `${path}.tmp-${pid}`;
}

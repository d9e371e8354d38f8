/**
 * DuckDB's memory for a reading process (verify, report, status, query, export) within the same
 * budget as a sync's (./budget.ts): the fixed part and DuckDB's buffer pool; what a query needs
 * beyond `memory_limit` spills to `<file>.tmp-<pid>` (docs/decisions/0016-readers-within-the-budget.md).
 */
import { duckdbThreads } from './budget.js';

const MiB = 2 ** 20;

/** RSS of a reading before DuckDB's buffer pool: Node, libduckdb and its threads, our modules. */
const READER_FIXED_BYTES = 128 * MiB;

/** Share of the rest (budget minus the fixed part) that becomes `memory_limit`: RSS overshoots it. */
const LIMIT_SHARE = 0.5;

/**
 * The share for a reading that writes Parquet (export, publish): its scan fills any pool, so a smaller
 * one is no slower (docs/decisions/0014-published-dataset.md).
 */
const PARQUET_LIMIT_SHARE = 0.25;

/** Smallest `memory_limit`: under it a spilling aggregate of two threads runs out of memory. */
const MIN_LIMIT_BYTES = 64 * MiB;

/**
 * The least `memory_limit` of a reading of every `raw` the budget's could not do (verify --hashes,
 * compact): DuckDB decompresses a whole vector of records at once and fails rather than spill (decision 0007).
 */
export const RAW_LIMIT_BYTES = 1024 * MiB;

export interface ReaderOptions {
  /** The reading reads every `raw` after the budget's reading could not: one thread, a ceiling rather than a share. */
  readonly readsRaw?: boolean;
  /** The reading writes Parquet (export, the publish): PARQUET_LIMIT_SHARE of the rest. */
  readonly writesParquet?: boolean;
}

export type ReaderMemory = ReturnType<typeof planReaderMemory>;

/** DuckDB's memory for reading the file at `path` (absolute) within `budget` bytes. */
export function planReaderMemory(budget: number, path: string, options: ReaderOptions = {}) {
  const share = Math.max(MIN_LIMIT_BYTES, Math.floor((budget - READER_FIXED_BYTES) * LIMIT_SHARE));
  const parquet = Math.max(MIN_LIMIT_BYTES, Math.floor((budget - READER_FIXED_BYTES) * PARQUET_LIMIT_SHARE));
  return Object.freeze({
    /** DuckDB's buffer pool, bytes (`memory_limit`). */
    memoryLimit: options.readsRaw
      ? Math.max(share, RAW_LIMIT_BYTES)
      : options.writesParquet
        ? parquet
        : share,
    /** DuckDB's worker threads (`threads`). */
    threads: options.readsRaw ? 1 : duckdbThreads(share),
    /** Where DuckDB spills (`temp_directory`): `<file>.tmp-<pid>`, removed when the file closes. */
    tempDirectory: `${path}.tmp-${process.pid}`,
  });
}

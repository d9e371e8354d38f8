/**
 * One memory budget for the whole process (--memory, TSYNC_MEMORY; default 512 MB) and everything
 * that holds memory derived from it, so that a sync's peak RSS stays under the budget whatever the
 * size of the records. BENCHMARKS.md ("Memory budget") has the measurements behind each constant.
 *
 * Where a sync's memory goes (measured on the bench's backfills):
 * - a fixed part: Node, libduckdb and its threads, our modules, before any page (FIXED_BYTES);
 * - pages in flight, in the V8 heap: each page is held as its body, its text, the parsed objects,
 *   every item's text (`raw`) and its rows while a fetcher normalizes it, then as its rows (`raw`
 *   included) while it waits to queue, is queued and is in the writer's batch. HEAP_PER_PAGE_BYTE
 *   is the heap that one JSON byte in flight costs at the peak, V8's headroom included;
 * - DuckDB: its buffer pool (`memory_limit`) holds the open transaction's rows and what is committed
 *   but not yet checkpointed, which `wal_autocheckpoint` bounds.
 *
 * The budget minus the fixed part (the rest) is split in two: half is DuckDB's share, its WAL
 * threshold (what it holds between checkpoints), the other half the V8 heap's, from
 * which the heap mark (heap-guard.ts) and the page bytes follow. DuckDB's `memory_limit` itself is
 * the whole rest, and never under DUCKDB_MIN_BYTES (1 GiB): a DuckDB that reaches its limit inside a commit
 * or a checkpoint does not spill, it fails and invalidates the open database ("FATAL Error: Failed
 * to rollback transaction"), and what a checkpoint pins grows with the `raw` JSON stored in `jobs`
 * (BENCHMARKS.md). So the limit is a ceiling against that failure, not the share DuckDB normally
 * uses; the WAL threshold keeps it near its share.
 */
import { availableParallelism } from 'node:os';
import { ConfigError } from '../errors.js';

const MiB = 2 ** 20;

/** The default budget, bytes: 512 MB (488 MiB), under the 512 MiB of a small container. */
export const DEFAULT_MEMORY = 512e6;

/** Refused at start below this: the fixed part (~110 MiB) and the smallest heap mark leave no room for pages. */
export const MEMORY_FLOOR = 192e6;

/** RSS of a sync before it holds any page: Node ~40 MiB, libduckdb ~50 MiB, modules and buffers. */
const FIXED_BYTES = 112 * MiB;

/**
 * Share of the rest (budget minus FIXED_BYTES) that the plan hands out. The peaks overshoot what the
 * shares below aim at (DuckDB pins more at a checkpoint than its WAL threshold, V8 keeps garbage):
 * planned on the whole rest, a 512 MB budget peaked at 744 MB on a backfill, while the plan of a
 * 256 MB budget (35% of 512 MB's rest) peaked at 493-494 MB, bench and hour-long records alike, for
 * +7-22% wall time (BENCHMARKS.md, "Re-measured on main").
 */
const PLANNED_SHARE = 0.35;

/** Share of the planned rest DuckDB normally holds; the V8 heap gets the other part. */
const DUCKDB_SHARE = 0.5;

/**
 * DuckDB memory beyond the WAL threshold and the open transaction: the loader's staged batch, query
 * state, a checkpoint's write buffers.
 */
const DUCKDB_WORK_BYTES = 64 * MiB;

/** Smallest V8 heap mark: below it the guard would collect after nearly every page. */
const MIN_HEAP_BYTES = 48 * MiB;

/** Heap bytes per JSON byte in flight, at the peak (text, objects, raw texts, rows, V8's headroom). */
const HEAP_PER_PAGE_BYTE = 10;

/** Pages queued between the fetchers and the writer: pages come normalized, a deeper queue only holds memory. */
const QUEUE_DEPTH = 1;

/** Pages of JSON the writer loads in one go at most (the page in hand and the one waiting). */
const BATCH_PAGES = 2;

/** Smallest and largest page target: below 256 KiB statements per page dominate, above 8 MiB nothing is gained. */
const MIN_PAGE_BYTES = 256 * 1024;
const MAX_PAGE_BYTES = 8 * MiB;

/** Commit after this many child rows (utterances + words) at most (LOADER-LAB: >= 120k is fast). */
const MAX_COMMIT_ROWS = 150_000;
/** DuckDB memory an uncommitted child row costs, bytes (words are ~40 B columnar; slack for strings). */
const BYTES_PER_PENDING_ROW = 400;

/**
 * DuckDB memory an uncommitted JSON byte costs: `raw` as received, and the text of the rows parsed
 * out of it (full_transcript, utterances, module_results).
 */
const BYTES_PER_PENDING_JSON_BYTE = 2;

/** DuckDB threads get at least this much of the buffer pool each; more threads than this allows idle. */
const DUCKDB_BYTES_PER_THREAD = 48 * MiB;

export interface DuckDbMemory {
  /** Buffer pool, bytes (`memory_limit`). */
  readonly memoryLimit: number;
  /** WAL bytes after which DuckDB checkpoints (`wal_autocheckpoint`): bounds what stays resident. */
  readonly walAutocheckpoint: number;
  /** DuckDB's worker threads (`threads`). */
  readonly threads: number;
}

export interface MemoryPlan {
  /** The budget it was derived from, bytes. */
  readonly budget: number;
  /** JSON bytes a page aims at (the PageSizer's target). */
  readonly pageBytes: number;
  /** Pages waiting between the fetchers and the writer (PageQueue capacity). */
  readonly queueDepth: number;
  /** Most JSON bytes the writer loads in one go (src/sync/writer/page-queue.ts). */
  readonly batchBytes: number;
  /** Child rows after which the writer commits. */
  readonly commitRows: number;
  /** JSON bytes loaded after which the writer commits (bounds a transaction of big records). */
  readonly commitBytes: number;
  /** V8 heap bytes at which the sync asks for a full collection (heap-guard.ts). */
  readonly heapBytes: number;
  readonly duckdb: DuckDbMemory;
}

/**
 * The plan for `budget` bytes with `concurrency` fetchers. Below MEMORY_FLOOR, a ConfigError (the
 * config already refuses such a budget from a flag or the environment; this guards other callers).
 */
export function planMemory(budget: number, concurrency: number): MemoryPlan {
  if (!(budget >= MEMORY_FLOOR)) {
    throw new ConfigError('--memory', `is too little for a sync: give it at least ${MEMORY_FLOOR / 1e6}MB`);
  }
  const rest = Math.floor((budget - FIXED_BYTES) * PLANNED_SHARE);
  const duckdbShare = Math.floor(rest * DUCKDB_SHARE);
  const pagesInFlight = Math.max(1, concurrency) + QUEUE_DEPTH + BATCH_PAGES;
  const heapBytes = Math.max(MIN_HEAP_BYTES, Math.floor(rest * (1 - DUCKDB_SHARE)));
  const pageBytes = clamp(
    Math.floor(heapBytes / (pagesInFlight * HEAP_PER_PAGE_BYTE)),
    MIN_PAGE_BYTES,
    MAX_PAGE_BYTES,
  );
  const commitRows = clamp(Math.floor(duckdbShare / BYTES_PER_PENDING_ROW), 10_000, MAX_COMMIT_ROWS);
  return Object.freeze({
    budget,
    pageBytes,
    queueDepth: QUEUE_DEPTH,
    batchBytes: pageBytes * BATCH_PAGES,
    heapBytes,
    commitRows,
    commitBytes: Math.floor((commitRows * BYTES_PER_PENDING_ROW) / BYTES_PER_PENDING_JSON_BYTE),
    duckdb: Object.freeze({
      memoryLimit: duckdbShare + commitRows * BYTES_PER_PENDING_ROW + DUCKDB_WORK_BYTES,
      // Committed data stays resident until a checkpoint: at most DuckDB's share of it. A quarter
      // of the share held no less memory (hour-long records: 924 against 920 MB) for 10% more CPU:
      // every checkpoint rewrites `jobs.raw` (BENCHMARKS.md).
      walAutocheckpoint: duckdbShare,
      threads: clamp(Math.floor(duckdbShare / DUCKDB_BYTES_PER_THREAD), 1, availableParallelism()),
    }),
  });
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

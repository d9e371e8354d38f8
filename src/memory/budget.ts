/**
 * One memory budget for the whole process (--memory, TSYNC_MEMORY; default 512 MB) and all derived
 * from it, so a sync's peak RSS stays under it whatever the records and history (decision 0005).
 * A sync's memory: a fixed part (FIXED_BYTES); pages in flight in the V8 heap (bodies, each item's
 * `raw`: DuckDB parses them); DuckDB's `memory_limit` (the open transaction, small commits in the WAL,
 * its work). The planned part of the rest is split between DuckDB's share (how big a transaction
 * gets) and the V8 heap's (heap-guard.ts's mark and the page size).
 */
import { availableParallelism } from 'node:os';
import { ConfigError } from '../errors.js';

const MiB = 2 ** 20;

/** The default budget, bytes: 512 MB (488 MiB), under the 512 MiB of a small container. */
export const DEFAULT_MEMORY = 512e6;

/** Refused at start below this, bytes: the fixed part and the smallest heap mark leave no room for pages. */
export const MEMORY_FLOOR = 192e6;

/** RSS of a sync before it holds any page, bytes: Node, libduckdb, modules and buffers. */
const FIXED_BYTES = 112 * MiB;

/** Share of the rest (budget minus FIXED_BYTES) handed out: peaks overshoot (freed pages, V8's garbage). */
const PLANNED_SHARE = 0.35;

/** Share of the planned rest that is DuckDB's (its open transaction); the V8 heap gets the rest. */
const DUCKDB_SHARE = 0.5;

/** The WAL threshold as a share of DuckDB's: only commits under a batch go through the WAL. */
const WAL_SHARE = 0.25;

/**
 * DuckDB memory beyond the WAL threshold and the open transaction, bytes: the least that does not
 * spill (decision 0009).
 */
const DUCKDB_WORK_BYTES = 32 * MiB;

/** Smallest `memory_limit`, bytes: parsing a big record needs several times its size. */
const MIN_DUCKDB_LIMIT_BYTES = 96 * MiB;

/** Smallest V8 heap mark, bytes: below it the guard would collect after nearly every page. */
const MIN_HEAP_BYTES = 48 * MiB;

/** Heap bytes per JSON byte in flight at the peak: the body, each item's text, V8's headroom. */
const HEAP_PER_PAGE_BYTE = 10;

/** Pages queued between the fetchers and the writer (texts only): fetching goes on while DuckDB works. */
const QUEUE_PAGES = 1;

/** Heap bytes per JSON byte of a queued page: its records' texts (UTF-16 at worst) and their heads. */
const HEAP_PER_QUEUED_BYTE = 5;

/**
 * Pages of JSON the writer loads in one go at most (the page in hand and the one waiting); also the
 * lot whose new records are parsed together (src/load/parse-batch.ts, decision 0008).
 */
const BATCH_PAGES = 2;

/** Smallest and largest page target, bytes: below 256 KiB statements per page dominate, above 8 MiB nothing is gained. */
const MIN_PAGE_BYTES = 256 * 1024;
const MAX_PAGE_BYTES = 8 * MiB;

/** Most child rows (utterances + words) in one transaction; commitBytes is usually reached first. */
const MAX_COMMIT_ROWS = 1_000_000;
/** DuckDB memory an uncommitted child row costs, bytes. */
const BYTES_PER_PENDING_ROW = 64;

/** DuckDB memory an uncommitted JSON byte costs until the commit writes it: `raw` and its rows. */
const BYTES_PER_PENDING_JSON_BYTE = 2.5;

/** JSON bytes a writer loads between two opens of its file: an instance keeps each row group it wrote. */
const REOPEN_JSON_BYTES: number = 1e9;

/**
 * DuckDB's jemalloc settings (`DUCKDB_JE_MALLOC_CONF`, set by src/cli/main.ts unless the environment
 * does): freed pages go back to the system soon, one arena (docs/decisions/0005-one-memory-budget.md).
 */
export const DUCKDB_ALLOCATOR_CONF = 'dirty_decay_ms:200,muzzy_decay_ms:0,narenas:1';

/** DuckDB memory each of its threads gets at least, bytes: more threads would only spill more. */
const DUCKDB_BYTES_PER_THREAD = 48 * MiB;

export type MemoryPlan = ReturnType<typeof planMemory>;
export type DuckDbMemory = MemoryPlan['duckdb'];

/** The plan for `budget` bytes with `concurrency` fetchers; below MEMORY_FLOOR, a ConfigError. */
export function planMemory(budget: number, concurrency: number) {
  if (!(budget >= MEMORY_FLOOR)) {
    throw new ConfigError('--memory', `is too little: every command needs at least ${MEMORY_FLOOR / 1e6}MB`);
  }
  const rest = Math.floor((budget - FIXED_BYTES) * PLANNED_SHARE);
  const duckdbShare = Math.floor(rest * DUCKDB_SHARE);
  const pagesInFlight = Math.max(1, concurrency) + QUEUE_PAGES + BATCH_PAGES;
  const heapBytes = Math.max(MIN_HEAP_BYTES, Math.floor(rest * (1 - DUCKDB_SHARE)));
  const pageBytes = clamp(
    Math.floor(heapBytes / (pagesInFlight * HEAP_PER_PAGE_BYTE)),
    MIN_PAGE_BYTES,
    MAX_PAGE_BYTES,
  );
  const commitRows = clamp(Math.floor(duckdbShare / BYTES_PER_PENDING_ROW), 10_000, MAX_COMMIT_ROWS);
  const walAutocheckpoint = Math.floor(duckdbShare * WAL_SHARE);
  return Object.freeze({
    /** The budget it was derived from, bytes. */
    budget,
    /** JSON bytes a page aims at (the PageSizer's target). */
    pageBytes,
    /** JSON bytes of pages waiting between the fetchers and the writer (PageQueue capacity; one page always fits). */
    queueBytes: Math.floor((QUEUE_PAGES * pageBytes * HEAP_PER_PAGE_BYTE) / HEAP_PER_QUEUED_BYTE),
    /**
     * Most JSON bytes the writer loads in one go (src/sync/writer/writer.ts withWaitingPages), and of
     * new records staged in DuckDB before the writer parses them (src/load/parse-batch.ts).
     */
    batchBytes: pageBytes * BATCH_PAGES,
    /** V8 heap bytes at which the sync asks for a full collection (heap-guard.ts). */
    heapBytes,
    /** Child rows after which the writer commits. */
    commitRows,
    /** JSON bytes loaded after which the writer commits (bounds a transaction of big records). */
    commitBytes: Math.floor(duckdbShare / BYTES_PER_PENDING_JSON_BYTE),
    /** JSON bytes loaded after which the writer opens its file again, between transactions. */
    reopenBytes: REOPEN_JSON_BYTES,
    duckdb: Object.freeze({
      /** Buffer pool, bytes (`memory_limit`): small commits up to the WAL threshold, the open transaction, its work. */
      memoryLimit: Math.max(MIN_DUCKDB_LIMIT_BYTES, walAutocheckpoint + duckdbShare + DUCKDB_WORK_BYTES),
      /** WAL bytes after which DuckDB checkpoints (`wal_autocheckpoint`): bounds what stays resident. */
      walAutocheckpoint,
      /** DuckDB's worker threads (`threads`). */
      threads: duckdbThreads(duckdbShare),
    }),
  });
}

/** DuckDB's worker threads (`threads`) for `bytes` of its memory: one at least, one a core at most. */
export function duckdbThreads(bytes: number): number {
  return clamp(Math.floor(bytes / DUCKDB_BYTES_PER_THREAD), 1, availableParallelism());
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

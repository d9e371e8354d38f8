/**
 * One memory budget for the whole process (--memory, TSYNC_MEMORY; default 512 MB) and everything
 * that holds memory derived from it, so that a sync's peak RSS stays under the budget whatever the
 * size of the records and of the history already stored. docs/decisions/0005-one-memory-budget.md has the measurements
 * behind the DuckDB figures; BENCHMARKS.md those behind the page figures.
 *
 * Where a sync's memory goes:
 * - a fixed part: Node, libduckdb and its threads, our modules, before any page (FIXED_BYTES);
 * - pages in flight, in the V8 heap: a page's body as bytes, scanned for its items' boundaries
 *   (src/extract/json-scan.ts), each item's text kept as the record's `raw`
 *   (src/normalize/page-records.ts) while it is queued and in the writer's batch. No rows are built
 *   in JavaScript: DuckDB parses the texts. HEAP_PER_PAGE_BYTE is the heap that one JSON byte in
 *   flight costs at the peak, V8's headroom included;
 * - DuckDB (`memory_limit`): the open transaction's rows (bounded by commitBytes and commitRows),
 *   which a commit that stored at least a batch writes straight into the file (src/store/database.ts
 *   checkpointAtCommit); the rows of smaller commits, committed through the WAL and not yet
 *   checkpointed (bounded by the WAL threshold, `wal_autocheckpoint`); and its work (the batch being
 *   parsed on the staging connection, query state, a checkpoint's write buffers).
 *
 * The planned part of the rest (budget minus FIXED_BYTES, times PLANNED_SHARE) is split in two:
 * DuckDB's share sets how big a transaction gets; the V8 heap's share sets the heap mark
 * (heap-guard.ts) and the page size. DuckDB's `memory_limit` is the sum of what it may hold: WAL
 * threshold + transaction + DUCKDB_WORK_BYTES (114 MiB at 512 MB), at least 96 MiB. A checkpoint pins no more than
 * that because writers never let it merge row groups (src/store/file/merge-row-groups.ts): a merging
 * checkpoint pinned the groups it rewrote and failed FATAL at its limit.
 */
import { availableParallelism } from 'node:os';
import { ConfigError } from '../errors.js';

const MiB = 2 ** 20;

/** The default budget, bytes: 512 MB (488 MiB), under the 512 MiB of a small container. */
export const DEFAULT_MEMORY = 512e6;

/** Refused at start below this, bytes: the fixed part and the smallest heap mark leave no room for pages. */
export const MEMORY_FLOOR = 192e6;

/** RSS of a sync before it holds any page, bytes: Node ~40 MiB, libduckdb ~50 MiB, modules and buffers. */
const FIXED_BYTES = 112 * MiB;

/**
 * Share of the rest (budget minus FIXED_BYTES) that the plan hands out: 0.35. The peaks overshoot
 * what the shares aim at (the allocator keeps freed pages, V8 keeps garbage between collections);
 * planned on the whole rest, a back-fill passed its budget (docs/decisions/0005-one-memory-budget.md).
 */
const PLANNED_SHARE = 0.35;

/** Share of the planned rest that is DuckDB's (its open transaction): 0.5; the V8 heap gets the other part. */
const DUCKDB_SHARE = 0.5;

/**
 * The WAL threshold as a share of DuckDB's: 0.25. Only commits under a batch go through the WAL (a
 * walk's last commit, an incremental run's few jobs); a bigger one is written into the file at
 * its commit. A commit that finds the WAL past the threshold checkpoints, itself included.
 */
const WAL_SHARE = 0.25;

/**
 * DuckDB memory beyond the WAL threshold and the open transaction, bytes: the records staged and
 * parsed on the staging connection (parseBytes of JSON), query state, a checkpoint's write
 * buffers. Anything else the limit leaves room for is the file's blocks DuckDB keeps cached (a
 * checkpoint's among them), which add to the peak: the least that does not make DuckDB spill
 * (docs/decisions/0009-a-commit-written-into-the-file-once.md).
 */
const DUCKDB_WORK_BYTES = 32 * MiB;

/**
 * Smallest `memory_limit`, bytes: at small budgets the sum above leaves too little to parse big
 * records, whose parse needs an allocation several times their size
 * (docs/decisions/0005-one-memory-budget.md).
 */
const MIN_DUCKDB_LIMIT_BYTES = 96 * MiB;

/** Smallest V8 heap mark, bytes: below it the guard would collect after nearly every page. */
const MIN_HEAP_BYTES = 48 * MiB;

/** Heap bytes per JSON byte in flight at the peak: the body, each item's text, V8's headroom. */
const HEAP_PER_PAGE_BYTE = 10;

/** Pages queued between the fetchers and the writer (normalized: scanned, items cut out). */
const QUEUE_DEPTH = 1;

/** Pages of JSON the writer loads in one go at most (the page in hand and the one waiting). */
const BATCH_PAGES = 2;

/**
 * Batches whose new records are parsed together (src/load/parse-batch.ts): parsing costs a fixed
 * part a statement, which small batches pay again and again. The texts wait in DuckDB (its work),
 * not in the V8 heap; more than two make DuckDB spill at the default budget
 * (docs/decisions/0008-duckdb-parses-the-pages-javascript-keeps-the-walk.md).
 */
const PARSE_BATCHES = 2;

/** Smallest and largest page target, bytes: below 256 KiB statements per page dominate, above 8 MiB nothing is gained. */
const MIN_PAGE_BYTES = 256 * 1024;
const MAX_PAGE_BYTES = 8 * MiB;

/**
 * Most child rows (utterances + words) in one transaction. Not the bound in practice: the JSON
 * they come from reaches commitBytes first (a word is ~70 bytes of JSON).
 */
const MAX_COMMIT_ROWS = 1_000_000;
/**
 * DuckDB memory an uncommitted child row costs, bytes: words are ~40 B columnar and go to the file
 * each time a transaction fills a row group (122,880 rows), utterances (~200 B) stay until the commit.
 */
const BYTES_PER_PENDING_ROW = 64;

/**
 * DuckDB memory an uncommitted JSON byte costs until the commit writes it: `raw` as received, the
 * rows parsed out of it and the last row group of words (duckdb_memory() at the commits of a
 * back-fill, docs/decisions/0009-a-commit-written-into-the-file-once.md).
 */
const BYTES_PER_PENDING_JSON_BYTE = 2.5;

/**
 * JSON bytes a writer loads between two opens of its file (src/store/database.ts reopen): 1 GB.
 * DuckDB keeps in memory a description of every row group its instance wrote, which grows a
 * back-fill's peak with what it wrote; an instance opened again knows only the file's, read as
 * statements need them (docs/decisions/0009-a-commit-written-into-the-file-once.md).
 */
const REOPEN_JSON_BYTES = 1e9;

/**
 * How DuckDB's allocator (its own jemalloc, configured through `DUCKDB_JE_MALLOC_CONF`) hands
 * freed memory back: pages freed 200 ms ago go back to the system (DuckDB's build keeps them
 * 1 s), and one arena instead of one per thread group. A writer frees and takes buffer blocks
 * all the time; what jemalloc keeps of them counts in the peak. Set by the process entry
 * (src/cli/main.ts) before DuckDB loads, unless the environment sets it (docs/decisions/0005-one-memory-budget.md).
 */
export const DUCKDB_ALLOCATOR_CONF = 'dirty_decay_ms:200,muzzy_decay_ms:0,narenas:1';

/** DuckDB's share per thread, bytes: 48 MiB, so 1 thread at 512 MB, 2 from about 700 MB. */
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
  /** Most JSON bytes the writer loads in one go (src/sync/writer/writer.ts withWaitingPages). */
  readonly batchBytes: number;
  /** JSON bytes of new records staged in DuckDB before the writer parses them (src/load/parse-batch.ts). */
  readonly parseBytes: number;
  /** Child rows after which the writer commits. */
  readonly commitRows: number;
  /** JSON bytes loaded after which the writer commits (bounds a transaction of big records). */
  readonly commitBytes: number;
  /** V8 heap bytes at which the sync asks for a full collection (heap-guard.ts). */
  readonly heapBytes: number;
  /** JSON bytes loaded after which the writer opens its file again, between transactions. */
  readonly reopenBytes: number;
  readonly duckdb: DuckDbMemory;
}

/**
 * The plan for `budget` bytes with `concurrency` fetchers. Below MEMORY_FLOOR, a ConfigError (the
 * config already refuses such a budget from a flag or the environment; this guards other callers).
 */
export function planMemory(budget: number, concurrency: number): MemoryPlan {
  if (!(budget >= MEMORY_FLOOR)) {
    throw new ConfigError('--memory', `is too little: every command needs at least ${MEMORY_FLOOR / 1e6}MB`);
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
  const walAutocheckpoint = Math.floor(duckdbShare * WAL_SHARE);
  return Object.freeze({
    budget,
    pageBytes,
    queueDepth: QUEUE_DEPTH,
    batchBytes: pageBytes * BATCH_PAGES,
    parseBytes: pageBytes * BATCH_PAGES * PARSE_BATCHES,
    heapBytes,
    commitRows,
    commitBytes: Math.floor(duckdbShare / BYTES_PER_PENDING_JSON_BYTE),
    reopenBytes: REOPEN_JSON_BYTES,
    duckdb: Object.freeze({
      // What DuckDB may hold at once: small commits' data up to the WAL threshold, the open
      // transaction and its work. A checkpoint runs at a commit, so the transaction's data is then
      // the committed data.
      memoryLimit: Math.max(MIN_DUCKDB_LIMIT_BYTES, walAutocheckpoint + duckdbShare + DUCKDB_WORK_BYTES),
      // What small commits leave in memory until a checkpoint.
      walAutocheckpoint,
      threads: clamp(Math.floor(duckdbShare / DUCKDB_BYTES_PER_THREAD), 1, availableParallelism()),
    }),
  });
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/**
 * The single writer of a kind's walk and its commit policy. Fetchers walk slices in parallel and
 * queue their pages (fetch-slices.ts); the writer loads them as they come, from any slice, in
 * transactions that span several pages: it commits every `commitRows` child rows or `commitBytes`
 * JSON bytes (src/memory/budget.ts) and when the walk ends, not when a slice completes (the open
 * transaction's checkpoint claims a slice's end). Every `reopenBytes` of JSON loaded, it opens the
 * file again between two transactions. Each commit carries a checkpoint, saved inside the
 * transaction (DuckDB) and after its commit (Redis).
 *
 * A transaction that stored at least `batchBytes` of new or changed records is written straight
 * into the file at its commit; less goes through the WAL
 * (docs/decisions/0009-a-commit-written-into-the-file-once.md).
 */
import type { Page, Paging } from '../../extract/index.js';
import type { JobKind } from '../../kinds.js';
import { type LoadResult, NOTHING_LOADED } from '../../load/loader.js';
import type { MemoryPlan } from '../../memory/budget.js';
import { mergePageRecords, type PageRecords } from '../../normalize/index.js';
import { addSeenIds, type Database, eraseLoadedTombstoned } from '../../store/index.js';
import { saveCheckpoint } from '../checkpoints/duckdb-store.js';
import type { KindReport, KindRunContext, RunCounters } from '../kind-summary.js';
import type { Checkpoint } from '../types.js';
import { fetchSlices, PageQueue, type Queued, type SliceSource } from './fetch-slices.js';

/** What the writer's commits claim (slice-ledger.ts windowClaims, pending.ts). */
export interface Claims {
  /** Every page of slice `index` was loaded, in the open transaction or an earlier one. */
  complete(index: number): void;
  /** `ids`, of every record listed (valid or not), are loaded in the open transaction. */
  listed(ids: readonly string[]): void;
  /** The checkpoint the open transaction saves. */
  checkpoint(): Checkpoint;
  /** The open transaction committed `cp`, what `checkpoint` returned inside it. */
  committed(cp: Checkpoint): void;
}

export interface WriteState {
  readonly counters: RunCounters;
  readonly report: KindReport;
  readonly claims: Claims;
}

/** Runs the fetchers and the writer together; a writer failure stops the fetchers. */
export async function walkAndLoad(
  ctx: KindRunContext,
  kind: JobKind,
  slices: SliceSource,
  firstPage: Page | undefined,
  paging: Paging,
  state: WriteState,
): Promise<void> {
  const stop = new AbortController();
  // Holds enough pages that the fetchers keep fetching while the writer waits on DuckDB (queueBytes).
  const queue = new PageQueue<Queued>(ctx.memory.queueBytes, queuedBytes);
  const fetching = fetchSlices(ctx.client, kind, slices, firstPage, queue, {
    ...paging,
    concurrency: ctx.plan.concurrency,
    signal: AbortSignal.any([ctx.signal, stop.signal]),
    onRestart: () => (state.counters.restarts += 1),
    onAnomaly: () => (state.counters.anomalies += 1),
  });
  // Observed below once the writer is done; until then a rejection must not count as unhandled.
  fetching.catch(() => {});
  try {
    await writePages(ctx, kind, queue, state);
  } catch (error) {
    stop.abort(error);
    queue.close();
    await fetching.catch(() => {});
    throw error;
  }
  await fetching;
}

/** Loads pages as they come and commits them with their checkpoint, by the policy above. */
async function writePages(
  ctx: KindRunContext,
  kind: JobKind,
  queue: PageQueue<Queued>,
  state: WriteState,
): Promise<void> {
  const { counters, claims } = state;
  let loadedSinceOpen = 0;
  for (let ended = false; !ended; ) {
    // A transaction that rolls back stored nothing: the run's totals count committed loads and
    // re-checks only. A rollback ends the walk.
    const committed = counters.loads();
    const batch = await ctx.db
      .transaction(async () => {
        const size = new TransactionSize(ctx.memory);
        let drained: boolean;
        try {
          drained = await loadPages(ctx, kind, queue, state, size);
          // What the loader still holds staged is parsed into this transaction, not a failed one.
          const flushed: LoadResult = { ...NOTHING_LOADED, ...(await ctx.loader.flush()) };
          counters.addLoad(flushed);
          size.add(flushed, 0);
          if (ctx.tombstones) await eraseLoadedTombstoned(ctx.db, { keep: ctx.plan.eraseKeepMetadata });
        } catch (error) {
          await ctx.loader.discard();
          throw error;
        }
        size.beforeCommit(ctx.db);
        const cp = claims.checkpoint();
        await saveCheckpoint(ctx.stores, kind, cp, 'in-transaction');
        return { cp, drained, rows: size.rows, bytes: size.bytes, stored: size.storedBytes };
      })
      .catch((error: unknown) => {
        counters.takeBack(committed);
        throw error;
      });
    ctx.logger.debug(
      { kind, child_rows: batch.rows, json_bytes: batch.bytes, stored_json_bytes: batch.stored },
      'transaction committed',
    );
    claims.committed(batch.cp);
    await saveCheckpoint(ctx.stores, kind, batch.cp, 'after-commit');
    ended = batch.drained;
    loadedSinceOpen += batch.bytes;
    if (!ended && loadedSinceOpen >= ctx.memory.reopenBytes) {
      const started = Date.now();
      if (await ctx.db.reopen()) {
        ctx.logger.debug(
          { kind, json_bytes: loadedSinceOpen, ms: Date.now() - started },
          'database opened again',
        );
        loadedSinceOpen = 0;
      }
    }
  }
}

/**
 * Loads pages into the open transaction until it is to commit (`size`) or the queue is closed and
 * drained (then true); a slice that ends is marked complete in the claims. The caller flushes.
 */
async function loadPages(
  ctx: KindRunContext,
  kind: JobKind,
  queue: PageQueue<Queued>,
  { counters, report, claims }: WriteState,
  size: TransactionSize,
): Promise<boolean> {
  for (;;) {
    const taken = await queue.take();
    if (taken === undefined) return true;
    if (typeof taken === 'number') {
      // The open transaction's checkpoint claims it; its commit waits for the size or the drain.
      claims.complete(taken);
      continue;
    }
    const records = withWaitingPages(queue, taken, ctx.memory.batchBytes);
    counters.addPages(records.pages, records.count);
    // Every record listed, valid or not: a quarantined job is still listed upstream (reconcile.ts).
    const seen = records.listedIds;
    if (ctx.plan.full && seen.length > 0) await addSeenIds(ctx.db, { ids: seen });
    claims.listed(seen);
    ctx.retention.check(kind, records.jobs);
    const result = await ctx.loader.stage(records, new Date(), ctx.memory.batchBytes);
    counters.addLoad(result);
    ctx.heap.check();
    report.update();
    if (size.add(result, records.bytes)) return false;
  }
}

/**
 * The records of the page in hand and of the pages already waiting behind it, up to `maxBytes` of
 * JSON, each job once: each load costs a fixed number of statements. Big pages are loaded alone.
 */
function withWaitingPages(queue: PageQueue<Queued>, first: PageRecords, maxBytes: number): PageRecords {
  const pages = [first];
  let bytes = first.bytes;
  for (;;) {
    const next = queue.takeIf((taken) => typeof taken !== 'number' && bytes + taken.bytes <= maxBytes);
    if (next === undefined || typeof next === 'number') break;
    pages.push(next);
    bytes += next.bytes;
  }
  return mergePageRecords(pages);
}

/** JSON bytes a queued item holds: a page's records' bytes, none for a slice's end. */
function queuedBytes(item: Queued): number {
  return typeof item === 'number' ? 0 : item.bytes;
}

/** Child rows stored, JSON bytes read and JSON bytes stored in the open transaction. */
export class TransactionSize {
  rows = 0;
  bytes = 0;
  storedBytes = 0;

  constructor(private readonly memory: MemoryPlan) {}

  /** Counts a load of `bytes` of JSON; true when the transaction is to commit now. */
  add(result: Pick<LoadResult, 'utterances' | 'words' | 'storedBytes'>, bytes: number): boolean {
    this.rows += result.utterances + result.words;
    this.bytes += bytes;
    this.storedBytes += result.storedBytes;
    return this.rows >= this.memory.commitRows || this.bytes >= this.memory.commitBytes;
  }

  beforeCommit(db: Database): void {
    if (this.storedBytes >= this.memory.batchBytes) db.checkpointAtCommit();
  }
}

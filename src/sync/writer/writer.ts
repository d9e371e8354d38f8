/**
 * The single writer of a kind's walk and its commit policy. Fetchers walk slices in parallel and
 * queue their pages (fetch-slices.ts); the writer loads them as they come, from any slice, in
 * transactions that span several pages: it commits every `commitRows` child rows or `commitBytes`
 * JSON bytes (src/memory/budget.ts) and when the walk ends (its queue closed and drained), not when
 * a slice completes (a slice's end is claimed by the open transaction's checkpoint); a transaction
 * of at least a batch is written straight into the file at its commit. Every `reopenBytes` of JSON
 * loaded, it opens the file again, between two transactions (Database.reopen). New records are
 * parsed `parseBytes` at a time, the last of a transaction before its commit
 * (src/load/parse-batch.ts). Each commit carries a checkpoint, saved in two phases: inside the
 * transaction (DuckDB) and after its commit (Redis); its claims say what it may claim. The walk of
 * a window and the re-check of pending jobs both load through it.
 */

import type { Page, Paging } from '../../extract/index.js';
import type { JobKind } from '../../kinds.js';
import { saveCheckpoint } from '../checkpoints/checkpoints.js';
import type { RunCounters } from '../counters.js';
import type { KindRunContext } from '../kind-context.js';
import type { KindProgress } from '../kind-summary.js';
import { addSeen } from '../reconcile.js';
import type { Checkpoint } from '../types.js';
import { flushStaged, TransactionSize } from './commit-policy.js';
import { fetchSlices, type SliceSource } from './fetch-slices.js';
import type { QueueMessage } from './page-queue.js';
import { PageQueue, withWaitingPages } from './page-queue.js';

/** What the writer's commits claim (slice-ledger.ts windowClaims, pending.ts). */
export interface Claims {
  /** Every page of slice `index` was loaded, in the open transaction or an earlier one. */
  complete(index: number): void;
  /** The checkpoint the open transaction saves. */
  checkpoint(): Checkpoint;
  /** The open transaction committed `cp`, what `checkpoint` returned inside it. */
  committed(cp: Checkpoint): void;
}

export interface WriteState {
  readonly counters: RunCounters;
  readonly progress: KindProgress;
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
  const onAbort = () => stop.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  // Pages come normalized (the fetchers normalize them as they read them), so the writer needs no deep
  // queue to keep busy: each fetcher holds its next page while it waits (src/memory/budget.ts).
  const queue = new PageQueue<QueueMessage>(ctx.memory.queueDepth);
  const fetching = fetchSlices(ctx.client, kind, slices, firstPage, queue, {
    concurrency: ctx.plan.concurrency,
    sizer: paging.sizer,
    budget: paging.budget,
    anomalyPauseMs: paging.anomalyPauseMs,
    signal: stop.signal,
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
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
  }
  await fetching;
}

/**
 * Loads pages as they come (from any slice), commits every `commitRows` child rows or `commitBytes`
 * JSON bytes and at the walk's end, and checkpoints the watermark of the oldest-first prefix of
 * complete slices.
 */
async function writePages(
  ctx: KindRunContext,
  kind: JobKind,
  queue: PageQueue<QueueMessage>,
  { counters, progress, claims }: WriteState,
): Promise<void> {
  let loadedSinceOpen = 0;
  for (let ended = false; !ended; ) {
    const batch = await ctx.db.transaction(async () => {
      const size = new TransactionSize(ctx.memory);
      let drained: boolean;
      try {
        drained = await loadPages(ctx, kind, queue, { counters, progress, claims }, size);
        await flushStaged(ctx.loader, counters, size);
      } catch (error) {
        await ctx.loader.discard();
        throw error;
      }
      size.beforeCommit(ctx.db);
      const cp = claims.checkpoint();
      await saveCheckpoint(ctx.stores, kind, cp, 'in-transaction');
      return { cp, drained, rows: size.rows, bytes: size.bytes, stored: size.storedBytes };
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
 * drained (then true); a slice that ends is marked complete in the claims. The new records are
 * staged and parsed `parseBytes` of JSON at a time; the caller flushes the last of them.
 */
async function loadPages(
  ctx: KindRunContext,
  kind: JobKind,
  queue: PageQueue<QueueMessage>,
  { counters, progress, claims }: WriteState,
  size: TransactionSize,
): Promise<boolean> {
  for (;;) {
    const message = await queue.take();
    if (message === undefined) return true;
    if (message.type === 'done') {
      // The open transaction's checkpoint claims it; its commit waits for the size or the drain.
      claims.complete(message.slice);
      continue;
    }
    const records = withWaitingPages(queue, message, ctx.memory.batchBytes);
    counters.addPages(records.pages, records.count);
    if (ctx.plan.full) await addSeen(ctx.db, records.listedIds);
    ctx.retention.check(kind, records.jobs);
    const result = await ctx.loader.stage(records, new Date(), ctx.memory.parseBytes);
    counters.addLoad(result);
    ctx.heap.check();
    progress.update();
    if (size.add(result, records.bytes)) return false;
  }
}

/**
 * Jobs seen `queued` or `processing` are fetched again on every run until they reach `done` or
 * `error`, even when they are older than the window. The service cannot fetch one job by id through
 * the list endpoints, so they are asked for with windows around their created_at
 * (pending-windows.ts: neighbours within a page share one). A window is walked like any slice:
 * its `next` links are followed until it is exhausted.
 */
import type { ListName } from '../extract/index.js';
import type { Listing, Page } from '../extract/listing.js';
import type { Paging } from '../extract/walk/plan-window.js';
import { type WalkOptions, walkSlice } from '../extract/walk/walk-slice.js';
import type { JobKind } from '../kinds.js';
import type { Database } from '../load/database.js';
import { listPendingJobs, type PendingJob } from '../load/statements/jobs.js';
import { normalizePage } from '../normalize/page-records.js';
import { saveCheckpoint } from './checkpoints/checkpoints.js';
import type { RunCounters } from './counters.js';
import type { KindRunContext } from './kind-context.js';
import { nextPendingWindow } from './pending-windows.js';
import type { Checkpoint } from './types.js';
import { flushStaged, TransactionSize } from './writer/commit-policy.js';
import { PageQueue } from './writer/page-queue.js';

/** Pending jobs of a kind created in [since, before). */
export async function pendingJobs(
  db: Database,
  kind: JobKind,
  since: Date,
  before: Date,
): Promise<PendingJob[]> {
  return listPendingJobs(db, {
    kind,
    since: since.toISOString(),
    before: before.toISOString(),
  });
}

/**
 * Fetches the current records of `pending`, `parallel` windows at a time (the run's concurrency:
 * an idle run is mostly these round trips). Each window is cut when a fetcher takes it, at the
 * page size the walk has learnt so far (a first window asks for one job's neighbours only). Pages
 * come as they arrive, through a queue of `parallel` pages, so memory stays bounded however many
 * jobs a window holds.
 */
export async function* fetchPending(
  client: Listing,
  list: ListName,
  pending: readonly PendingJob[],
  walk: WalkOptions,
  parallel = 1,
): AsyncGenerator<Page> {
  const queue = new PageQueue<Page>(Math.max(1, parallel));
  const stop = new AbortController();
  const onAbort = () => stop.abort(walk.signal?.reason);
  walk.signal?.addEventListener('abort', onAbort, { once: true });
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < pending.length && !stop.signal.aborted) {
      const { window: slice, end } = nextPendingWindow(pending, next, walk.sizer.limit);
      next = end;
      for await (const page of walkSlice(client, list, slice, { ...walk, signal: stop.signal })) {
        await queue.push(page);
      }
    }
  };
  const workers = Promise.all(
    Array.from({ length: Math.min(Math.max(1, parallel), pending.length) }, () =>
      worker().catch((error: unknown) => {
        failure ??= { error };
        stop.abort(error);
      }),
    ),
  ).finally(() => queue.close());
  try {
    for (let page = await queue.take(); page !== undefined; page = await queue.take()) yield page;
    await workers;
    if (failure) throw failure.error;
  } finally {
    stop.abort();
    queue.close();
    await workers;
    walk.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Re-checks the kind's pending jobs created in [now - pendingMaxAge, windowAfter) (younger ones the
 * window walks anyway). Its windows bring their neighbours too, so it stages, parses and commits as
 * the writer does (writer/commit-policy.ts); the last transaction also saves the unchanged
 * checkpoint. A run stopped in between re-checks what is still pending next time.
 */
export async function recheckPending(
  ctx: KindRunContext,
  kind: JobKind,
  windowAfter: Date,
  counters: RunCounters,
  cp: Checkpoint,
  paging: Paging,
): Promise<void> {
  const since = new Date(ctx.startedAt.getTime() - ctx.plan.pendingMaxAge);
  const pending = await pendingJobs(ctx.db, kind, since, windowAfter);
  if (pending.length === 0) return;
  const walk: WalkOptions = { ...paging, signal: ctx.signal, onRestart: () => (counters.restarts += 1) };
  const pages = fetchPending(ctx.client, kind, pending, walk, ctx.plan.concurrency);
  try {
    for (let drained = false; !drained; ) {
      drained = await ctx.db.transaction(async () => {
        const size = new TransactionSize(ctx.memory);
        let all: boolean;
        try {
          all = await stagePages(ctx, pages, counters, size);
          await flushStaged(ctx.loader, counters, size);
        } catch (error) {
          await ctx.loader.discard();
          throw error;
        }
        size.beforeCommit(ctx.db);
        if (!all) return false;
        counters.pendingRechecked = pending.length;
        await saveCheckpoint(ctx.stores, kind, cp, 'in-transaction');
        return true;
      });
    }
  } finally {
    await pages.return(undefined);
  }
}

/**
 * Stages the re-checked pages into the open transaction until it is to commit (`size`; then false)
 * or the pages end (true). New records are parsed `parseBytes` of JSON at a time, as the writer's.
 */
async function stagePages(
  ctx: KindRunContext,
  pages: AsyncGenerator<Page>,
  counters: RunCounters,
  size: TransactionSize,
): Promise<boolean> {
  for (let next = await pages.next(); !next.done; next = await pages.next()) {
    const records = normalizePage(next.value);
    counters.addPages(records.pages, records.count);
    const result = await ctx.loader.stage(records, new Date(), ctx.memory.parseBytes);
    counters.addLoad(result);
    if (size.add(result, records.bytes)) return false;
  }
  return true;
}

/**
 * Jobs seen `queued` or `processing` are fetched again on every run until they reach `done` or
 * `error`, even when they are older than the window. The service cannot fetch one job by id through
 * the list endpoints, so each is asked for with a window of ±1 ms around its created_at (jobs
 * sharing a timestamp share the request). That window is walked like any slice: when more jobs
 * share the timestamp than a page holds, its `next` links are followed until it is exhausted
 * (one request per timestamp when they fit one page, as before).
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
import type { Checkpoint } from './types.js';
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
 * Fetches the current records of pending jobs, one window per distinct created_at, `parallel`
 * windows at a time (the run's concurrency: an idle run is mostly these round trips). Pages come
 * as they arrive, through a queue of `parallel` pages, so memory stays bounded however many jobs
 * share a timestamp.
 */
export async function* fetchPending(
  client: Listing,
  list: ListName,
  pending: readonly PendingJob[],
  walk: WalkOptions,
  parallel = 1,
): AsyncGenerator<Page> {
  const instants = [...new Set(pending.map((job) => Date.parse(job.created_at)))];
  const queue = new PageQueue<Page>(Math.max(1, parallel));
  const stop = new AbortController();
  const onAbort = () => stop.abort(walk.signal?.reason);
  walk.signal?.addEventListener('abort', onAbort, { once: true });
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < instants.length && !stop.signal.aborted) {
      const instant = instants[next++]!;
      const slice = { after: new Date(instant), before: new Date(instant + 1) };
      for await (const page of walkSlice(client, list, slice, { ...walk, signal: stop.signal })) {
        await queue.push(page);
      }
    }
  };
  const workers = Promise.all(
    Array.from({ length: Math.min(Math.max(1, parallel), instants.length) }, () =>
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
 * window walks anyway) in one transaction, which also saves the unchanged checkpoint.
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
  await ctx.db.transaction(async () => {
    const walk: WalkOptions = { ...paging, signal: ctx.signal, onRestart: () => (counters.restarts += 1) };
    const pages = fetchPending(ctx.client, kind, pending, walk, ctx.plan.concurrency);
    for await (const page of pages) {
      const records = normalizePage(page);
      counters.addPages(records.pages, records.count);
      counters.addLoad(await ctx.loader.load(records, new Date()));
    }
    counters.pendingRechecked = pending.length;
    await saveCheckpoint(ctx.stores, kind, cp, 'in-transaction');
  });
}

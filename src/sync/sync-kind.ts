/**
 * One kind's run: re-check pending jobs, plan the window into slices, fetch them (in parallel) and
 * load them with one writer in transactions that span several pages, checkpointing as the
 * oldest-first prefix of complete slices grows. The watermark only moves inside (DuckDB) or after
 * (Redis) the commit of the rows it covers.
 */
import type { ListingClient, Page } from '../api/index.js';
import { ListingAnomalyError, TsyncError, toError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Database } from '../store/database.js';
import type { JobLoader } from '../store/loader.js';
import { prepareBatch } from '../store/prepare.js';
import { DEFAULT_BUDGET, type PageBudget } from './bounded-page.js';
import { RunCounters } from './counters.js';
import { DEFAULT_MAX_DELETE_SHARE } from './deletion-guard.js';
import { fetchSlices, type QueueMessage } from './fetch-slices.js';
import type { HeapGuard } from './heap-guard.js';
import type { MemoryPlan } from './memory-budget.js';
import { withWaitingPages } from './page-batch.js';
import { PageQueue } from './page-queue.js';
import { PageSizer } from './page-sizer.js';
import { fetchPending, pendingJobs } from './pending.js';
import { type Paging, planWindow } from './plan-window.js';
import { addSeen, markUnseenDeleted, startSeenSet } from './reconcile.js';
import { reconcileStart } from './reconcile-window.js';
import { recordRunFinish, recordRunStart } from './run-log.js';
import type { Slice } from './slices.js';
import type { Checkpoint, CheckpointStore, KindSummary, RunOutcome, SyncKind, SyncOptions } from './types.js';
import type { WalkOptions } from './walk-slice.js';

export interface KindRunContext {
  readonly db: Database;
  readonly loader: JobLoader;
  readonly client: ListingClient;
  /** Stores to save into, in order; the DuckDB one always, the chosen one when it is another. */
  readonly stores: readonly CheckpointStore[];
  readonly options: SyncOptions;
  /** Page bytes, queue depth, batch and commit sizes, from the memory budget. */
  readonly memory: MemoryPlan;
  /** Asked between loads to keep the V8 heap within the budget. */
  readonly heap: HeapGuard;
  readonly runId: string;
  /** The run's start: every window's fixed `before_date`. */
  readonly startedAt: Date;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

export async function syncKind(
  ctx: KindRunContext,
  kind: SyncKind,
  checkpoint: Checkpoint,
): Promise<KindSummary> {
  const { options, startedAt } = ctx;
  const mode = options.full ? 'full' : 'incremental';
  const after = options.full
    ? reconcileStart(checkpoint, options, startedAt)
    : windowStart(checkpoint, options);
  const window: Slice = { after, before: startedAt };
  const counters = new RunCounters();
  const requestsBefore = ctx.client.stats.requests;
  const retriesBefore = ctx.client.stats.retries;
  const summary = (outcome: RunOutcome, error?: string): KindSummary => ({
    runId: ctx.runId,
    kind,
    mode,
    windowAfter: after?.toISOString() ?? null,
    windowBefore: startedAt.toISOString(),
    pages: counters.pages,
    requests: ctx.client.stats.requests - requestsBefore,
    retries: ctx.client.stats.retries - retriesBefore,
    jobsFetched: counters.jobsFetched,
    inserted: counters.inserted,
    updated: counters.updated,
    unchanged: counters.unchanged,
    quarantined: counters.quarantined,
    deleted: counters.deleted,
    restored: counters.restored,
    words: counters.words,
    pendingRechecked: counters.pendingRechecked,
    restarts: counters.restarts,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    outcome,
    ...(error === undefined ? {} : { error }),
  });

  await recordRunStart(ctx.db, summary('ok'));
  const progress = new KindProgress(ctx, kind, counters);
  // What is committed so far; a failure keeps it, so the next run resumes from there.
  const committed = { watermark: checkpoint.watermark };
  try {
    const budget: PageBudget = {
      // --page-bytes when given, else the memory budget's page bytes (memory-budget.ts).
      pageBytes: options.pageBytes ?? ctx.memory.pageBytes,
      recordBytes: options.maxRecordBytes ?? DEFAULT_BUDGET.recordBytes,
    };
    const paging: Paging = { sizer: new PageSizer(options.pageSize, budget.pageBytes), budget };
    if (mode === 'full') await startSeenSet(ctx.db);
    else if (after) await recheckPending(ctx, kind, after, counters, checkpoint, paging);

    const { firstPage, slices } = await planWindow(ctx.client, kind, window, paging, {
      sliceJobs: options.sliceJobs ?? options.pageSize * 4,
      concurrency: options.concurrency,
      signal: ctx.signal,
      onAnomaly: () => (counters.anomalies += 1),
    });
    ctx.logger.debug(
      { kind, slices: slices.length, after: window.after, before: window.before },
      'window planned',
    );
    const fetchedBefore = counters.jobsFetched;
    await walkAndLoad(ctx, kind, slices, firstPage, paging, { counters, checkpoint, progress, committed });
    if (firstPage.items.length > 0 && counters.jobsFetched === fetchedBefore) {
      throw new ListingAnomalyError(
        `the first page of the ${kind} list held ${firstPage.items.length} jobs but the walk brought none`,
        { hint: 'nothing was marked deleted; the next run walks again (report it upstream if it persists)' },
      );
    }

    const done = await ctx.db.transaction(async () => {
      if (mode === 'full' && counters.anomalies > 0) {
        // The walk went through, but the listing glitched on the way: do not trust it to delete.
        ctx.logger.warn(
          { kind, anomalies: counters.anomalies },
          '%s: %d page(s) contradicted themselves during the --full walk (cleared on asking again); no job is marked deleted this run, the next --full run marks them',
          kind,
          counters.anomalies,
        );
      } else if (mode === 'full') {
        counters.deleted = await markUnseenDeleted(
          ctx.db,
          kind,
          startedAt,
          new Date(),
          {
            maxDeleteShare: options.maxDeleteShare ?? DEFAULT_MAX_DELETE_SHARE,
          },
          after,
        );
      }
      const result = summary('ok');
      await recordRunFinish(ctx.db, result);
      const cp = await finalCheckpoint(ctx, kind, startedAt.toISOString(), result);
      await saveCheckpoint(ctx, kind, cp, 'in-transaction');
      return { result, cp };
    });
    await saveCheckpoint(ctx, kind, done.cp, 'after-commit');
    return done.result;
  } catch (thrown) {
    const error = toError(thrown);
    // Stopped on purpose: what was drained is committed; the run is interrupted, not failed.
    const interrupted = ctx.signal.aborted;
    const result = summary(
      interrupted ? 'interrupted' : 'failed',
      // The hint (how to fix it) travels with the reason into sync_runs, the summary and the logs.
      interrupted ? 'interrupted by a signal' : error instanceof TsyncError ? error.toLine() : error.message,
    );
    await recordRunFinish(ctx.db, result).catch(() => {});
    const cp: Checkpoint = { ...checkpoint, watermark: committed.watermark, lastRun: result };
    for (const phase of ['in-transaction', 'after-commit'] as const)
      await saveCheckpoint(ctx, kind, cp, phase).catch(() => {});
    if (interrupted) return result;
    throw Object.assign(error, { summary: result });
  } finally {
    progress.finish();
  }
}

interface WriteState {
  readonly counters: RunCounters;
  readonly checkpoint: Checkpoint;
  readonly progress: KindProgress;
  readonly committed: { watermark: string | null };
}

/** Runs the fetchers and the writer together; a writer failure stops the fetchers. */
async function walkAndLoad(
  ctx: KindRunContext,
  kind: SyncKind,
  slices: readonly Slice[],
  firstPage: Page,
  paging: Paging,
  state: WriteState,
): Promise<void> {
  const stop = new AbortController();
  const onAbort = () => stop.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  // Pages come validated and mapped to rows (the fetchers prepare them), so the writer needs no deep
  // queue to keep busy: each fetcher holds its next page while it waits (memory-budget.ts).
  const queue = new PageQueue<QueueMessage>(ctx.memory.queueDepth);
  const fetching = fetchSlices(ctx.client, kind, slices, firstPage, queue, {
    concurrency: ctx.options.concurrency,
    sizer: paging.sizer,
    budget: paging.budget,
    signal: stop.signal,
    onRestart: () => (state.counters.restarts += 1),
    onAnomaly: () => (state.counters.anomalies += 1),
    prepare: prepareBatch,
  });
  // Observed below once the writer is done; until then a rejection must not count as unhandled.
  fetching.catch(() => {});
  try {
    await writePages(ctx, kind, slices, queue, state);
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
 * An incremental window starts at the watermark minus the lookback; `--since` moves that start
 * back (never forward: a later start would leave a gap between the watermark and it). A first run
 * starts at `--since`, or takes all history.
 */
function windowStart(checkpoint: Checkpoint, options: SyncOptions): Date | null {
  const since = options.since ?? null;
  if (!checkpoint.watermark) return since;
  const fromWatermark = new Date(Date.parse(checkpoint.watermark) - options.lookback);
  return since && since < fromWatermark ? since : fromWatermark;
}

async function recheckPending(
  ctx: KindRunContext,
  kind: SyncKind,
  windowAfter: Date,
  counters: RunCounters,
  cp: Checkpoint,
  paging: Paging,
): Promise<void> {
  const since = new Date(ctx.startedAt.getTime() - ctx.options.pendingMaxAge);
  const pending = await pendingJobs(ctx.db, kind, since, windowAfter);
  if (pending.length === 0) return;
  await ctx.db.transaction(async () => {
    const walk: WalkOptions = { ...paging, signal: ctx.signal, onRestart: () => (counters.restarts += 1) };
    const pages = fetchPending(ctx.client, kind, pending, walk, ctx.options.concurrency);
    for await (const { items, texts } of pages) {
      counters.addPage(items.length);
      counters.addLoad(await ctx.loader.load(items, { syncedAt: new Date(), texts }));
    }
    counters.pendingRechecked = pending.length;
    await saveCheckpoint(ctx, kind, cp, 'in-transaction');
  });
}

/**
 * The single writer: loads pages as they come (from any slice), commits every `commitRows` child
 * rows and whenever a slice completes, and checkpoints the watermark of the oldest-first prefix of
 * complete slices.
 */
async function writePages(
  ctx: KindRunContext,
  kind: SyncKind,
  slices: readonly Slice[],
  queue: PageQueue<QueueMessage>,
  { counters, checkpoint, progress, committed }: WriteState,
): Promise<void> {
  const complete = new Set<number>();
  let prefix = 0; // slices [0, prefix) are complete
  for (let ended = false; !ended; ) {
    const batch = await ctx.db.transaction(async () => {
      let rows = 0;
      let drained = false;
      for (;;) {
        const message = await queue.take();
        if (message === undefined) {
          drained = true;
          break;
        }
        if (message.type === 'done') {
          complete.add(message.slice);
          // Slices walked in parallel tend to end together: one commit covers every end already queued.
          for (let next = queue.takeIf(isDone); next?.type === 'done'; next = queue.takeIf(isDone)) {
            complete.add(next.slice);
          }
          break;
        }
        const batch = withWaitingPages(queue, message, ctx.memory.batchBytes);
        for (const page of batch.pages) {
          counters.addPage(page.items.length);
          if (ctx.options.full) await addSeen(ctx.db, page.items);
        }
        const result = await ctx.loader.load(batch.items, {
          syncedAt: new Date(),
          texts: batch.texts,
          prepared: batch.prepared,
        });
        counters.addLoad(result);
        ctx.heap.check();
        progress.update();
        rows += result.utterances + result.words;
        if (rows >= ctx.memory.commitRows) break;
      }
      while (complete.has(prefix)) prefix += 1;
      const watermark =
        prefix > 0
          ? laterOf(committed.watermark, slices[prefix - 1]!.before.toISOString())
          : committed.watermark;
      const inProgress = slices[prefix];
      const cp: Checkpoint = {
        ...checkpoint,
        watermark,
        slice: inProgress
          ? { after: inProgress.after?.toISOString() ?? null, before: inProgress.before.toISOString() }
          : null,
      };
      await saveCheckpoint(ctx, kind, cp, 'in-transaction');
      return { cp, drained };
    });
    committed.watermark = batch.cp.watermark;
    await saveCheckpoint(ctx, kind, batch.cp, 'after-commit');
    ended = batch.drained;
  }
}

function isDone(message: QueueMessage): boolean {
  return message.type === 'done';
}

function laterOf(a: string | null, b: string): string {
  return a !== null && Date.parse(a) > Date.parse(b) ? a : b;
}

async function finalCheckpoint(
  ctx: KindRunContext,
  kind: SyncKind,
  watermark: string,
  lastRun: KindSummary,
): Promise<Checkpoint> {
  const since = new Date(ctx.startedAt.getTime() - ctx.options.pendingMaxAge);
  const pending = await pendingJobs(ctx.db, kind, since, new Date(Date.UTC(9999, 0, 1)));
  return { watermark, pending: pending.map((job) => job.id), slice: null, lastRun };
}

async function saveCheckpoint(
  ctx: KindRunContext,
  kind: SyncKind,
  cp: Checkpoint,
  phase: 'in-transaction' | 'after-commit',
): Promise<void> {
  for (const store of ctx.stores) await store.save(kind, cp, phase);
}

/** Reports progress at most every 250 ms. */
class KindProgress {
  private readonly started = Date.now();
  private last = 0;
  constructor(
    private readonly ctx: KindRunContext,
    private readonly kind: SyncKind,
    private readonly counters: RunCounters,
  ) {}
  update(force = false): void {
    const now = Date.now();
    if (!force && now - this.last < 250) return;
    this.last = now;
    this.ctx.options.onProgress?.({
      kind: this.kind,
      pages: this.counters.pages,
      jobs: this.counters.jobsFetched,
      words: this.counters.words,
      elapsed: now - this.started,
    });
  }
  finish(): void {
    this.update(true);
  }
}

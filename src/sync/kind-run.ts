/**
 * One kind's run, start to end: record the start in sync_runs, re-check pending jobs, plan the
 * window into slices, walk and load them (writer/writer.ts), mark deletions on a --full run, then
 * save the final checkpoint with the run's summary. A failure saves the slice ledger's last
 * committed watermark and throws KindRunFailed carrying its summary; a stop on purpose (the signal)
 * returns 'interrupted'. A sync_runs row its writer never closed is closed 'abandoned' by the next run.
 */
import { ListingAnomalyError, TsyncError, toError } from '../errors.js';
import type { PageBudget } from '../extract/index.js';
import { defaultSliceJobs, PageSizer, type Paging, planWindow, type Slice } from '../extract/index.js';
import type { JobKind } from '../kinds.js';
import type { Logger } from '../log.js';
import {
  abandonRuns,
  createSeenSet,
  type Database,
  dropSeenSet,
  finishRun,
  insertRun,
} from '../store/index.js';
import { saveCheckpoint } from './checkpoints/duckdb-store.js';
import { type KindRunContext, kindReport, RunCounters } from './kind-summary.js';
import { pendingJobs, recheckPending } from './pending.js';
import { judgeUnseen, reconcileStart } from './reconcile.js';
import { KindRunFailed } from './run-failures.js';
import type { Checkpoint, KindSummary, SyncMode, SyncPlan } from './types.js';
import { sliceList } from './writer/fetch-slices.js';
import { SliceLedger, windowClaims } from './writer/slice-ledger.js';
import { walkAndLoad } from './writer/writer.js';

export async function syncKind(
  ctx: KindRunContext,
  kind: JobKind,
  checkpoint: Checkpoint,
): Promise<KindSummary> {
  const { plan, startedAt } = ctx;
  const { edges } = ctx.retention;
  const after = plan.full
    ? reconcileStart(checkpoint, plan, startedAt, edges.horizon)
    : windowStart(checkpoint, plan);
  // A reconcile with --window walks the recent window; without one (or on a file never synced),
  // the whole history the service lists.
  const mode: SyncMode = !plan.full
    ? 'incremental'
    : plan.reconcileWindow === null || after === null
      ? 'full'
      : 'recent';
  const window: Slice = { after, before: startedAt };
  const counters = new RunCounters();
  const report = kindReport(ctx, kind, { mode, after }, counters);

  await recordRunStart(ctx.db, report.summary('ok'));
  // Set once the window is planned; until then what is committed is the starting watermark.
  let ledger: SliceLedger | undefined;
  try {
    const budget: PageBudget = {
      pageBytes: plan.pageBytes ?? ctx.memory.pageBytes,
      recordBytes: plan.maxRecordBytes,
    };
    const paging: Paging = {
      sizer: new PageSizer(plan.pageSize, budget.pageBytes),
      budget,
      anomalyPauseMs: plan.anomalyPauseMs,
    };
    if (plan.full) await createSeenSet(ctx.db);
    // Every run but a whole-history walk re-checks the pending jobs its window leaves out.
    if (mode !== 'full' && after)
      await recheckPending(ctx, kind, after, paging, { counters, report, checkpoint });

    const { firstPage, slices } = await planWindow(ctx.client, kind, window, paging, {
      sliceJobs: plan.sliceJobs ?? defaultSliceJobs(plan.pageSize),
      concurrency: plan.concurrency,
      signal: ctx.signal,
      onAnomaly: () => (counters.anomalies += 1),
    });
    ctx.logger.debug(
      { kind, slices: slices.length, after: window.after, before: window.before },
      'window planned',
    );
    ledger = new SliceLedger(slices, checkpoint.watermark);
    const fetchedBefore = counters.jobsFetched;
    const firstCount = firstPage.ids.length;
    // The window's first page is the first page of its only slice.
    const reuse = slices.length === 1 ? firstPage : undefined;
    const claims = windowClaims(ledger, checkpoint);
    await walkAndLoad(ctx, kind, sliceList(slices), reuse, paging, { counters, report, claims });
    if (firstCount > 0 && counters.jobsFetched === fetchedBefore) {
      throw new ListingAnomalyError(
        `the first page of the ${kind} list held ${firstCount} jobs but the walk brought none`,
        { hint: 'nothing was marked deleted; the next run walks again (report it upstream if it persists)' },
      );
    }

    const done = await ctx.db.transaction(async () => {
      if (plan.full && counters.anomalies > 0) {
        // The walk went through, but the listing glitched on the way: do not trust it to delete.
        ctx.logger.warn(
          { kind, anomalies: counters.anomalies },
          '%s: %d page(s) contradicted themselves during the --full walk (cleared on asking again); no job is marked deleted or expired this run, the next --full run marks them',
          kind,
          counters.anomalies,
        );
      } else if (plan.full) {
        const judged = await judgeUnseen(ctx.db, kind, { after, before: startedAt }, edges, new Date(), plan);
        counters.deleted = judged.deleted;
        counters.expired = judged.expired;
      }
      // The seen ids are not kept in the file, after the final transaction or a stop.
      if (plan.full) await dropSeenSet(ctx.db);
      const result = report.summary('ok');
      await recordRunFinish(ctx.db, result);
      const cp = await finalCheckpoint(ctx, kind, startedAt.toISOString(), result);
      await saveCheckpoint(ctx.stores, kind, cp, 'in-transaction');
      return { result, cp };
    });
    await saveCheckpoint(ctx.stores, kind, done.cp, 'after-commit');
    report.finish(done.result);
    return done.result;
  } catch (thrown) {
    const error = toError(thrown);
    // Stopped on purpose: what was drained is committed; the run is interrupted, not failed.
    const interrupted = ctx.signal.aborted;
    const result = report.summary(
      interrupted ? 'interrupted' : 'failed',
      // The hint (how to fix it) travels with the reason into sync_runs, the summary and the logs.
      interrupted ? 'interrupted by a signal' : error instanceof TsyncError ? error.toLine() : error.message,
    );
    await recordRunFinish(ctx.db, result).catch(() => {});
    if (plan.full) await dropSeenSet(ctx.db).catch(() => {});
    const watermark = ledger ? ledger.committed : checkpoint.watermark;
    const cp: Checkpoint = { ...checkpoint, watermark, lastRun: result };
    for (const phase of ['in-transaction', 'after-commit'] as const)
      await saveCheckpoint(ctx.stores, kind, cp, phase).catch(() => {});
    report.finish(result);
    if (interrupted) return result;
    throw new KindRunFailed(result, error);
  }
}

/**
 * An incremental window starts at the watermark minus the lookback; `--since` moves that start
 * back (never forward: a later start would leave a gap between the watermark and it). A first run
 * starts at `--since`, or takes all history.
 */
function windowStart(checkpoint: Checkpoint, plan: SyncPlan): Date | null {
  const { since } = plan;
  if (!checkpoint.watermark) return since;
  const fromWatermark = new Date(Date.parse(checkpoint.watermark) - plan.lookback);
  return since && since < fromWatermark ? since : fromWatermark;
}

async function finalCheckpoint(
  ctx: KindRunContext,
  kind: JobKind,
  watermark: string,
  lastRun: KindSummary,
): Promise<Checkpoint> {
  const since = new Date(ctx.startedAt.getTime() - ctx.plan.pendingMaxAge);
  const pending = await pendingJobs(ctx.db, kind, since, new Date(Date.UTC(9999, 0, 1)));
  return { watermark, pending: pending.map((job) => job.id), slice: null, lastRun };
}

export async function recordRunStart(db: Database, run: KindSummary): Promise<void> {
  await insertRun(db, {
    run_id: run.runId,
    kind: run.kind,
    mode: run.mode,
    window_after: run.windowAfter,
    window_before: run.windowBefore,
    started_at: run.startedAt,
  });
}

export async function recordRunFinish(db: Database, run: KindSummary): Promise<void> {
  await finishRun(db, {
    run_id: run.runId,
    kind: run.kind,
    window_after: run.windowAfter,
    pages: run.pages,
    requests: run.requests,
    retries: run.retries,
    jobs_fetched: run.jobsFetched,
    inserted: run.inserted,
    updated: run.updated,
    unchanged: run.unchanged,
    quarantined: run.quarantined,
    deleted: run.deleted,
    expired: run.expired,
    restored: run.restored,
    finished_at: run.finishedAt,
    outcome: run.outcome,
    error: run.error ?? null,
  });
}

/** What an abandoned run's `error` says. */
export const ABANDONED_ERROR =
  'its writer stopped before recording how the run ended (killed, or the file could not be written); what it committed stays';

/**
 * Closes the runs another writer left 'running' as 'abandoned', ended `at`. Called by a run with the
 * file's writer lock held and the file open, before its own rows: no other writer can be running
 * then, so every 'running' row but this run's belongs to a writer that is gone.
 */
export async function recordAbandonedRuns(
  db: Database,
  runId: string,
  at: Date,
  logger: Logger,
): Promise<void> {
  const closed = await abandonRuns(db, {
    run_id: runId,
    finished_at: at.toISOString(),
    error: ABANDONED_ERROR,
  });
  if (closed.length === 0) return;
  logger.warn(
    { abandoned: closed.map((r) => `${r.run_id} ${r.kind}`) },
    'closed runs left running by a writer that is gone as abandoned',
  );
}

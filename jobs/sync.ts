/**
 * The sync job: one incremental sync, or reconcile (of the recent window or the whole history), of one kind, with checkpoints in Redis
 * (`${prefix}:checkpoint:${kind}`, written after each DuckDB commit). The DuckDB file is open, and
 * its writer lock held, only while the run lasts, so reports and ad-hoc queries read it and other
 * writers (`sync`, `compact`, ...) write it between runs; a run that finds it held past --lock-wait
 * is put back for later by the processor (src/worker/processor.ts).
 */
import { z } from 'zod';
import { DatabaseError, InterruptedError, TsyncError, toError } from '../src/errors.js';
import { JOB_KINDS } from '../src/kinds.js';
import { type PipelineOptions, type PipelineSummary, runPipeline } from '../src/pipeline.js';
import { SYNC_MODES, type SyncProgress } from '../src/sync/types.js';
import { defineJob, type JobContext } from '../src/worker/job-definition.js';
import { SYNC_JOB } from '../src/worker/queue.js';

export const syncPayload = z.strictObject({
  kind: z.enum(JOB_KINDS),
  mode: z.enum(SYNC_MODES).default('incremental'),
});
export type SyncPayload = z.output<typeof syncPayload>;

/** ms between progress reports written to the job (each is a Redis write). */
const PROGRESS_EVERY_MS = 1_000;

export const syncJob = defineJob(
  SYNC_JOB,
  syncPayload,
  async ({ kind, mode }, context): Promise<PipelineSummary> => {
    const { settings, metrics, logger, notifier } = context;
    // Only a `recent` reconcile is windowed; a `full` one walks the whole history.
    const { reconcileWindow, ...rest } = settings;
    let summary: PipelineSummary;
    try {
      summary = await context.writing((writeSignal) => {
        const options: PipelineOptions = {
          ...rest,
          reconcileWindow: mode === 'recent' ? reconcileWindow : null,
          since: null,
          kinds: [kind],
          full: mode !== 'incremental',
          checkpoints: 'redis',
          logger,
          signal: writeSignal,
          onProgress: progressReporter(context),
        };
        return runPipeline(options, options);
      });
    } catch (error) {
      // A busy file is no failed run: the processor puts it back for later.
      const busy = error instanceof DatabaseError && error.busy;
      if (!(error instanceof InterruptedError) && !busy) {
        const failure = toError(error);
        metrics.recordFailure(kind, mode, failure);
        const known = failure instanceof TsyncError ? failure : undefined;
        void notifier?.runEnded({
          kind,
          mode,
          outcome: 'failed',
          error: known ? known.toLine() : failure.message,
          retryable: known ? known.retryable : null,
        });
      }
      throw error;
    }
    for (const kindSummary of summary.kinds) {
      metrics.recordRun(kindSummary);
      metrics.recordFreshness(kindSummary.kind, summary.freshness?.[kindSummary.kind] ?? []);
      const { outcome, error = null } = kindSummary;
      void notifier?.runEnded({ kind, mode, outcome, runId: summary.runId, error, retryable: true });
    }
    if (summary.published) metrics.recordPublish(summary.published.dir, new Date());
    // Also a stop during the publish (src/pipeline.ts): the job's next run publishes.
    if (summary.outcome === 'interrupted') {
      throw new InterruptedError(`the ${kind} ${mode} sync stopped after committing its last batch`, {
        hint: 'the job returns to the queue and resumes from its checkpoint',
      });
    }
    if (summary.outcome === 'failed') {
      // Retryable: the engine throws the failures no retry can fix; one it only reports may pass next time.
      const reason = summary.kinds.find((k) => k.error)?.error ?? 'no reason given';
      throw new Error(`the ${kind} ${mode} sync failed: ${reason}`);
    }
    logger.info({ kinds: summary.kinds.map(brief) }, 'sync finished');
    return summary;
  },
);

function brief(k: PipelineSummary['kinds'][number]) {
  const { kind, mode, outcome, inserted, updated, unchanged, quarantined, requests, retries } = k;
  return { kind, mode, outcome, inserted, updated, unchanged, quarantined, requests, retries };
}

function progressReporter(context: JobContext): (progress: SyncProgress) => void {
  let last = 0;
  return (progress) => {
    const now = Date.now();
    if (now - last < PROGRESS_EVERY_MS) return;
    last = now;
    const { kind, pages, jobs, words } = progress;
    context.job.updateProgress({ kind, pages, jobs, words }).catch((error: unknown) => {
      context.logger.debug({ err: error }, 'could not record job progress');
    });
  };
}

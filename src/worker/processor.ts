/**
 * The BullMQ processor: finds the job's definition, runs it with a signal that aborts on shutdown,
 * and maps its failures to BullMQ's vocabulary. A non-retryable TsyncError (a refused key, a bad
 * setting) becomes an UnrecoverableError, so the job fails at once with the reason in
 * `job.failedReason`; an interrupted run goes back to the wait list without spending an attempt,
 * to resume from its checkpoint on the next start.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type Job, type Processor, UnrecoverableError, WaitingError } from 'bullmq';
import { InterruptedError, TsyncError, toError } from '../errors.js';
import type { Logger } from '../log.js';
import type { JobDefinition, SyncSettings } from './job-definition.js';
import type { WorkerMetrics } from './metrics.js';
import type { Notifier } from './notify.js';

/** ms a shutdown waits to put the interrupted job back in the wait list. */
const MOVE_BACK_MS = 1_000;

export interface ProcessorDeps {
  readonly jobs: Readonly<Record<string, JobDefinition>>;
  readonly settings: SyncSettings;
  readonly metrics: WorkerMetrics;
  readonly logger: Logger;
  /** Aborted when the worker shuts down. */
  readonly shutdown: AbortSignal;
  readonly notifier?: Notifier;
}

export function createProcessor(deps: ProcessorDeps): Processor {
  // Three parameters: BullMQ passes its cancellation signal only to processors that declare it.
  return async (job: Job, token?: string, cancel?: AbortSignal) => {
    const definition = Object.hasOwn(deps.jobs, job.name) ? deps.jobs[job.name] : undefined;
    if (!definition) {
      throw new UnrecoverableError(
        `unknown job "${job.name}"; this worker runs: ${Object.keys(deps.jobs).join(', ')}`,
      );
    }
    const signal = cancel ? AbortSignal.any([deps.shutdown, cancel]) : deps.shutdown;
    const logger = deps.logger.child({ job_id: job.id, job: job.name, job_attempt: job.attemptsMade + 1 });
    logger.info({ data: job.data }, 'job started');
    try {
      return await definition.run(job.data, {
        job,
        signal,
        logger,
        settings: deps.settings,
        metrics: deps.metrics,
        ...(deps.notifier ? { notifier: deps.notifier } : {}),
      });
    } catch (error) {
      throw await translate(error, job, token, logger);
    }
  };
}

async function translate(
  error: unknown,
  job: Job,
  token: string | undefined,
  logger: Logger,
): Promise<Error> {
  if (error instanceof InterruptedError) {
    logger.info('run interrupted after its last commit; the job goes back to the queue');
    // During a Redis outage this would wait for Redis; past the bound, BullMQ hands the job back
    // once its lock expires instead (the checkpoint is committed either way).
    await Promise.race([job.moveToWait(token).catch(() => {}), sleep(MOVE_BACK_MS)]);
    return new WaitingError();
  }
  if (error instanceof UnrecoverableError) return error;
  if (error instanceof TsyncError && !error.retryable) {
    return new UnrecoverableError(`${error.code}: ${error.toLine()}`);
  }
  return toError(error);
}

/**
 * The BullMQ processor: runs the job's definition with a signal that aborts on shutdown and the
 * file's writer lock for the part that writes, and maps its failures to BullMQ's vocabulary. A
 * non-retryable TsyncError becomes an UnrecoverableError: the job fails at once. Without spending
 * an attempt, an interrupted run goes back to the wait list to resume from its checkpoint, a job
 * handed over once the shutdown began goes back unstarted, and a run that found the file busy past
 * --lock-wait waits in the queue (BusyFile).
 */
import {
  DelayedError,
  type Job,
  type JobState,
  type Processor,
  UnrecoverableError,
  WaitingError,
} from 'bullmq';
import { DatabaseError, InterruptedError, TsyncError, toError } from '../errors.js';
import type { Logger } from '../log.js';
import { waitForWriterLock } from '../store/index.js';
import { formatDuration } from '../util/duration.js';
import { within } from '../util/within.js';
import { boundedRedisCall } from './connection.js';
import type { JobContext, JobRegistry, SyncSettings } from './job-definition.js';
import type { WorkerMetrics } from './metrics.js';
import type { Notifier } from './notify.js';
import { isEventRun, releaseEventRun } from './queue.js';

/**
 * ms a shutdown waits to put the interrupted job back in the wait list (or a busy run in the delayed
 * list); past it, during a Redis outage, BullMQ hands the job back once its lock expires instead.
 */
const MOVE_BACK_MS = 1_000;

export interface ProcessorDeps {
  readonly jobs: JobRegistry;
  readonly settings: SyncSettings;
  readonly metrics: WorkerMetrics;
  readonly logger: Logger;
  readonly shutdown: AbortSignal;
  readonly notifier?: Notifier;
  /** Whether runs find the database file busy, shared by the worker's runs and /healthz. */
  readonly busy: BusyFile;
  /** The state of a job of the queue by its id; 'unknown' once it is gone. */
  readonly jobState: (jobId: string) => Promise<JobState | 'unknown'>;
  /** ms a run that found the file busy waits in the queue (PUT_BACK_MS). */
  readonly putBackMs: number;
}

export function createProcessor(deps: ProcessorDeps): Processor {
  // Three parameters: BullMQ passes its cancellation signal only to processors that declare it.
  return async (job: Job, token?: string, cancel?: AbortSignal) => {
    if (deps.shutdown.aborted) {
      const logger = deps.logger.child({ job_id: job.id, job: job.name });
      logger.info('handed over while the worker shuts down; the job goes back to the queue unstarted');
      throw await moveBackToWait(job, token);
    }
    const definition = Object.hasOwn(deps.jobs, job.name) ? deps.jobs[job.name] : undefined;
    if (!definition) {
      throw new UnrecoverableError(
        `unknown job "${job.name}"; this worker runs: ${Object.keys(deps.jobs).join(', ')}`,
      );
    }
    const signal = cancel ? AbortSignal.any([deps.shutdown, cancel]) : deps.shutdown;
    const logger = deps.logger.child({ job_id: job.id, job: job.name, job_attempt: job.attemptsMade + 1 });
    const key = `${job.name} ${JSON.stringify(job.data)}`;
    const jobId = job.id ?? key;
    // Only a run nobody awaits may end without running, a scheduler's or a webhook's (a run of the
    // same job answers its event as well): one queued by `enqueue --wait` is awaited.
    const unawaited = job.repeatJobKey !== undefined || isEventRun(job);
    if (unawaited && deps.busy.doneSince(key, jobId)) {
      logger.info('put back while the file was busy, and a run of the same job has run since: nothing to do');
      return { skipped: 'a run of the same job ran since this one was put back' };
    }
    logger.info({ data: job.data }, 'job started');
    // A webhook's run: from now on the next event queues one run behind this one.
    await releaseEventRun(job).catch((error: unknown) =>
      logger.debug({ err: toError(error) }, 'could not release the event run'),
    );
    const context: JobContext = {
      job,
      signal,
      logger,
      settings: deps.settings,
      metrics: deps.metrics,
      ...(deps.notifier ? { notifier: deps.notifier } : {}),
      writing: (write) => writing(deps, logger, signal, () => deps.busy.taken(key, jobId), write),
    };
    try {
      return await definition.run(job.data, context);
    } catch (error) {
      if (error instanceof DatabaseError && error.busy)
        return putBack(deps, error, { job, token, key, unawaited }, logger);
      if (error instanceof InterruptedError) {
        logger.info('run interrupted after its last commit; the job goes back to the queue');
        throw await moveBackToWait(job, token);
      }
      if (error instanceof TsyncError && !error.retryable)
        throw new UnrecoverableError(`${error.code}: ${error.toLine()}`);
      throw toError(error);
    }
  };
}

/** Runs `write` with the file's writer lock (JobContext.writing). */
async function writing<T>(
  deps: ProcessorDeps,
  logger: Logger,
  signal: AbortSignal,
  onTaken: () => void,
  write: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const lost = new AbortController();
  const lock = await waitForWriterLock({
    db: deps.settings.db,
    command: 'worker',
    logger,
    waitMs: deps.settings.lockWait,
    signal,
    yields: true,
    onWait: (holder) => logger.debug({ lock_wait_ms: deps.settings.lockWait }, '%s; waiting', holder),
    onLost: (reason) => {
      logger.error({ reason }, 'lost the database lock during a run; stopping it after the batch in hand');
      lost.abort(new InterruptedError(reason));
    },
  });
  onTaken();
  try {
    return await write(AbortSignal.any([signal, lost.signal]));
  } finally {
    lock.release();
  }
}

/**
 * A run that found the file busy past --lock-wait: back in the queue for `putBackMs`, or, a
 * scheduler's or a webhook's run, ended at once when a run of the same job already waits put back
 * and is still in the queue (BusyFile). Never a failure.
 */
async function putBack(
  deps: ProcessorDeps,
  error: DatabaseError,
  run: {
    readonly job: Job;
    readonly token: string | undefined;
    readonly key: string;
    readonly unawaited: boolean;
  },
  logger: Logger,
): Promise<{ skipped: string }> {
  const { job, token, key } = run;
  const jobId = job.id ?? key;
  let verdict = deps.busy.found(key, jobId, error.message);
  const waiting = deps.busy.waiting(key);
  if (verdict === 'skipped' && run.unawaited && waiting !== undefined && !(await queued(deps, waiting))) {
    // The run put back left the queue without taking the file (removed, failed): this one waits.
    deps.busy.forget(key, waiting);
    verdict = deps.busy.found(key, jobId, error.message);
  }
  deps.metrics.recordBusy(job.name);
  if (verdict === 'skipped' && run.unawaited) {
    logger.warn(`${error.message}; this run ends, a run of the same job already waits for the file`);
    return { skipped: 'the database file was busy; a run of the same job already waits for it' };
  }
  logger.warn(
    { put_back_ms: deps.putBackMs },
    `${error.message}; the run goes back to the queue and asks again in ${formatDuration(deps.putBackMs)}`,
  );
  await boundedRedisCall(job.moveToDelayed(Date.now() + deps.putBackMs, token), MOVE_BACK_MS);
  throw new DelayedError();
}

/**
 * Whether job `jobId` is still in the queue, to run or running; true when Redis does not tell
 * within MOVE_BACK_MS, so a run then ends rather than a second one wait.
 */
async function queued(deps: ProcessorDeps, jobId: string): Promise<boolean> {
  const state = await within(
    deps.jobState(jobId).catch(() => 'waiting' as const),
    MOVE_BACK_MS,
    'waiting' as const,
  );
  return state !== 'completed' && state !== 'failed' && state !== 'unknown';
}

/**
 * Puts `job` back in the wait list without spending an attempt; returns the error that tells BullMQ
 * so. An interrupted run's checkpoint is committed either way.
 */
async function moveBackToWait(job: Job, token: string | undefined): Promise<WaitingError> {
  await boundedRedisCall(job.moveToWait(token), MOVE_BACK_MS);
  return new WaitingError();
}

/** ms a run that found the file busy waits in the queue before it asks again. */
export const PUT_BACK_MS = 30_000;

export interface BusyState {
  /** ms since the epoch: the first time a run found the file held since a run last took it. */
  readonly since: number;
  /** The last refusal: who holds the file. */
  readonly holder: string;
}

/**
 * The database file as the worker's runs find it: free, or held by another writer; never a failure.
 * One run per job (its name and payload) waits put back: another of the same job found busy
 * meanwhile ends at once, and the one put back ends at once when a run of the same job has taken
 * the file since. Only a scheduler's or a webhook's runs end so; one queued by `enqueue` waits.
 */
export class BusyFile {
  private busy: BusyState | undefined;
  /** By job key: the run waiting put back, since `at` (ms since the epoch). */
  private readonly putBack = new Map<string, { readonly jobId: string; readonly at: number }>();
  /** By job key: ms since the epoch when a run of that job last took the file. */
  private readonly tookAt = new Map<string, number>();

  /** A run of `key` (job `jobId`) took the file: it is free again. */
  taken(key: string, jobId: string, now = Date.now()): void {
    this.busy = undefined;
    this.tookAt.set(key, now);
    if (this.putBack.get(key)?.jobId === jobId) this.putBack.delete(key);
  }

  /** A run of `key` (job `jobId`) found the file held by `holder` past --lock-wait. */
  found(key: string, jobId: string, holder: string, now = Date.now()): 'put back' | 'skipped' {
    this.busy = { since: this.busy?.since ?? now, holder };
    const waiting = this.putBack.get(key);
    if (waiting !== undefined && waiting.jobId !== jobId) return 'skipped';
    this.putBack.set(key, { jobId, at: now });
    return 'put back';
  }

  /** The run of `key` waiting put back, if any. */
  waiting(key: string): string | undefined {
    return this.putBack.get(key)?.jobId;
  }

  /** Job `jobId` of `key` no longer waits put back: it left the queue. */
  forget(key: string, jobId: string): void {
    if (this.putBack.get(key)?.jobId === jobId) this.putBack.delete(key);
  }

  /** Whether job `jobId` was put back and a run of the same job has taken the file since. */
  doneSince(key: string, jobId: string): boolean {
    const waiting = this.putBack.get(key);
    if (waiting?.jobId !== jobId) return false;
    const took = this.tookAt.get(key);
    if (took === undefined || took < waiting.at) return false;
    this.putBack.delete(key);
    return true;
  }

  /** Since when, and by whom, the file has been busy; undefined while runs take it. */
  state(): BusyState | undefined {
    return this.busy;
  }
}

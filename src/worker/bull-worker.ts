/**
 * The BullMQ Worker of the sync queue and what it logs. Concurrency 1: runs of the two kinds queue
 * behind each other (one writer per DuckDB file). The job lock (`lockMs`) is renewed at half its
 * life while the job runs; once a dead worker's lock expires, the stalled check (same interval)
 * hands the job back to the queue.
 */
import { hostname } from 'node:os';
import { type Job, type Processor, Worker } from 'bullmq';
import { toError } from '../errors.js';
import type { Logger } from '../log.js';
import { bullConnection } from './connection.js';
import { SYNC_QUEUE } from './queue.js';

export interface BullWorkerOptions {
  readonly redisUrl: string;
  readonly prefix: string;
  /** ms */
  readonly lockMs: number;
  readonly logger: Logger;
}

export function createBullWorker(processor: Processor, options: BullWorkerOptions): Worker {
  const worker = new Worker(SYNC_QUEUE, processor, {
    connection: bullConnection(options.redisUrl),
    prefix: options.prefix,
    name: `${hostname()}:${process.pid}`,
    concurrency: 1,
    lockDuration: options.lockMs,
    stalledInterval: options.lockMs,
    // A job whose worker died this many times fails; each hand-back resumes from the checkpoint.
    maxStalledCount: 3,
  });
  logEvents(worker, options.logger);
  return worker;
}

const CONNECTION_ERRORS =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|Connection is closed|LOADING/;

const isConnectionError = (error: Error) =>
  CONNECTION_ERRORS.test(error.message) ||
  CONNECTION_ERRORS.test(String((error as NodeJS.ErrnoException).code));

/** BullMQ's error for a job whose key is gone: Redis came back empty while the job was in hand. */
const MISSING_KEY = /^Missing key for job (\S+)\./;
/**
 * BullMQ's error for a job whose lock ran out while it was in hand (Redis unreachable, or the
 * process too busy to renew it, for longer than the job lock): the stalled check hands the job back
 * to the queue and its next run resumes from the checkpoint.
 */
const MISSING_LOCK = /^Missing lock for job (\S+)\./;

function logEvents(worker: Worker, logger: Logger): void {
  // The job whose vanished key or lock was last logged: BullMQ reports each move it tries (finished,
  // then delayed).
  let goneJob: string | undefined;
  let unlockedJob: string | undefined;
  // Without a listener an 'error' event would crash the process. BullMQ reconnects by itself, and a
  // Redis outage is logged once by watchRedis (./connection.ts), so connection errors stay at debug.
  worker.on('error', (error) => {
    const err = toError(error);
    const gone = MISSING_KEY.exec(err.message)?.[1];
    const unlocked = MISSING_LOCK.exec(err.message)?.[1];
    if (isConnectionError(err)) logger.debug({ err }, 'worker connection error');
    // What its run committed stays in the file: nothing is lost, and nothing is left to move.
    else if (gone !== undefined) {
      if (gone !== goneJob)
        logger.info(
          { job_id: gone },
          'the job in hand is gone from Redis (it came back empty); its run has ended',
        );
      goneJob = gone;
    } else if (unlocked !== undefined) {
      if (unlocked !== unlockedJob)
        logger.warn(
          { job_id: unlocked },
          'the job lock ran out before its run ended (Redis unreachable for longer than --job-lock); the job goes back to the queue and runs again from its checkpoint',
        );
      unlockedJob = unlocked;
    }
    // On shutdown the interrupted job goes back to the wait list, so renewing its lock fails: expected.
    else if (worker.closing && /could not renew lock/i.test(err.message))
      logger.debug({ err }, 'job lock not renewed during shutdown');
    else if (/could not renew lock/i.test(err.message))
      logger.warn({ err }, 'could not renew a job lock; BullMQ may hand the job to another worker');
    else logger.error({ err }, 'worker error');
  });
  worker.on('completed', (job: Job) =>
    logger.info({ job_id: job.id, job: job.name, data: job.data }, 'job completed'),
  );
  worker.on('failed', (job: Job | undefined, error: Error) => {
    const attempts = job?.opts.attempts ?? 1;
    const final = error.name === 'UnrecoverableError' || (job !== undefined && job.attemptsMade >= attempts);
    const fields = {
      job_id: job?.id,
      job: job?.name,
      data: job?.data,
      attempts_made: job?.attemptsMade,
      attempts,
      reason: error.message,
    };
    if (final) logger.error(fields, 'job failed for good');
    else logger.warn(fields, 'job failed; BullMQ retries it after a backoff');
  });
  worker.on('stalled', (jobId: string) =>
    logger.warn({ job_id: jobId }, 'a stalled job (its worker died or lost its lock) goes back to the queue'),
  );
}

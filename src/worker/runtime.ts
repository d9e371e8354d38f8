/**
 * A running worker: the pieces of src/worker/ put together, started in an order that lets each
 * step be undone if a later one fails, and stopped in the reverse order. Startup: Redis, the file
 * lock (a second worker on the same DuckDB file stops here), the schedulers, the metrics server,
 * then the BullMQ worker (src/worker/bull-worker.ts).
 */
import type { Redis } from 'ioredis';
import { JOBS } from '../../jobs/index.js';
import { InterruptedError, toError } from '../errors.js';
import type { Logger } from '../log.js';
import type { SyncKind } from '../sync/types.js';
import { createBullWorker } from './bull-worker.js';
import { closeRedis, connectRedis } from './connection.js';
import { acquireFileLock } from './file-lock.js';
import { checkHealth } from './health.js';
import { startMetricsServer } from './http-server.js';
import type { JobDefinition, SyncSettings } from './job-definition.js';
import { createWorkerMetrics, type WorkerMetrics } from './metrics.js';
import { createProcessor } from './processor.js';
import { createSyncQueue } from './queue.js';
import { registerSchedules, type Schedule } from './schedule.js';

export interface WorkerOptions {
  readonly settings: SyncSettings;
  readonly kinds: readonly SyncKind[];
  readonly every: Schedule;
  readonly fullEvery: Schedule;
  /** The reconcile of the recent window (settings.reconcileWindow); none when absent. */
  readonly recentEvery?: Schedule;
  readonly reportEvery: Schedule;
  readonly metricsHost: string;
  /** 0 picks a free port. */
  readonly metricsPort: number;
  /** ms without a successful run of a kind before /healthz fails. */
  readonly staleAfterMs: number;
  /** ms a job's BullMQ lock lives unrenewed; a killed worker's job is handed back after about this long. */
  readonly jobLockMs: number;
  readonly logger: Logger;
  /** Defaults to jobs/index.ts. */
  readonly jobs?: Readonly<Record<string, JobDefinition>>;
}

export interface RunningWorker {
  readonly metricsPort: number;
  readonly metrics: WorkerMetrics;
  /** Resolves with a reason when the worker must stop on its own (its database lock was lost). */
  readonly fatal: Promise<string>;
  /** Stops taking jobs, interrupts the run in hand (it commits and checkpoints), closes everything. */
  stop(): Promise<void>;
}

type Cleanup = () => Promise<void>;

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const { settings, logger } = options;
  const cleanups: Cleanup[] = [];
  let reportFatal: (reason: string) => void = () => {};
  const fatal = new Promise<string>((resolve) => {
    reportFatal = resolve;
  });
  try {
    const redis = await connectRedis(settings.redisUrl, 'tsync-worker');
    cleanups.push(() => closeRedis(redis));
    const lock = await acquireFileLock({
      redis,
      prefix: settings.redisPrefix,
      db: settings.db,
      logger,
      onLost: reportFatal,
    });
    cleanups.push(() => lock.release());
    logger.info({ db: lock.holder.db, key: lock.key }, 'holding the database lock');

    const queue = createSyncQueue(settings.redisUrl, settings.redisPrefix);
    cleanups.push(() => queue.close());
    await registerSchedules(queue, {
      kinds: options.kinds,
      incremental: options.every,
      full: options.fullEvery,
      recent: options.recentEvery,
      report: options.reportEvery,
    });
    const metrics = createWorkerMetrics(queue, logger);
    const metricsPort = await serveMetrics(options, redis, metrics, cleanups);
    await runJobs(options, metrics, cleanups);
    logger.info(
      {
        kinds: options.kinds,
        every: options.every,
        fullEvery: options.fullEvery,
        recentEvery: options.recentEvery,
        recentWindowMs: settings.reconcileWindow,
      },
      'worker started',
    );

    let stopping: Promise<void> | undefined;
    return {
      metricsPort,
      metrics,
      fatal,
      stop: () => {
        stopping ??= runCleanups(cleanups, logger);
        return stopping;
      },
    };
  } catch (error) {
    await runCleanups(cleanups, logger);
    throw error;
  }
}

async function serveMetrics(
  options: WorkerOptions,
  redis: Redis,
  metrics: WorkerMetrics,
  cleanups: Cleanup[],
): Promise<number> {
  const startedAt = Date.now();
  const { kinds, staleAfterMs, logger } = options;
  const server = await startMetricsServer({
    host: options.metricsHost,
    port: options.metricsPort,
    registry: metrics.registry,
    health: () => checkHealth({ redis, kinds, staleAfterMs, startedAt, metrics }),
    logger,
  });
  cleanups.push(() => server.close());
  logger.info({ url: `http://${options.metricsHost}:${server.port}` }, 'serving /metrics and /healthz');
  return server.port;
}

async function runJobs(options: WorkerOptions, metrics: WorkerMetrics, cleanups: Cleanup[]): Promise<void> {
  const { settings, logger } = options;
  const shutdown = new AbortController();
  const processor = createProcessor({
    jobs: options.jobs ?? JOBS,
    settings,
    metrics,
    logger,
    shutdown: shutdown.signal,
  });
  const worker = createBullWorker(processor, {
    redisUrl: settings.redisUrl,
    prefix: settings.redisPrefix,
    lockMs: options.jobLockMs,
    logger,
  });
  cleanups.push(async () => {
    // close() first, so no job starts after the abort; it resolves once the job in hand ended.
    const closing = worker.close();
    // The reason reaches whatever the run was awaiting; an InterruptedError says what happened.
    shutdown.abort(new InterruptedError('the worker is shutting down (SIGTERM/SIGINT)'));
    await closing;
  });
  await worker.waitUntilReady();
}

/** Runs cleanups newest first; one failing does not skip the others. */
async function runCleanups(cleanups: Cleanup[], logger: Logger): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (error) {
      logger.warn({ err: toError(error) }, 'error while shutting down');
    }
  }
}

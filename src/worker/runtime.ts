/**
 * A running worker: the pieces of src/worker/ started in an order that lets each step be undone if
 * a later one fails, and stopped in the reverse order. What needs nothing locked comes first (the
 * metrics port, the report directory), then the worker's lock beside the database (a second worker
 * stops here, whatever its Redis prefix; each run takes the writer lock itself), Redis and its
 * watch, the schedulers, the BullMQ worker.
 */
import type { Processor, Queue } from 'bullmq';
import type { Schedule } from '../config/schedule.js';
import { InterruptedError, toError } from '../errors.js';
import type { JobKind } from '../kinds.js';
import type { Logger } from '../log.js';
import { acquireWriterLock } from '../store/index.js';
import { assertOutputFolder } from '../util/path-checks.js';
import { createBullWorker } from './bull-worker.js';
import { boundedRedisCall, closeRedis, connectRedis, watchRedis } from './connection.js';
import { checkHealth, type HealthReport, startMetricsServer } from './http-server.js';
import type { JobRegistry, SyncSettings } from './job-definition.js';
import { createWorkerMetrics, type WorkerMetrics } from './metrics.js';
import { Notifier } from './notify.js';
import { BusyFile, createProcessor, PUT_BACK_MS } from './processor.js';
import { createSyncQueue, registerSchedules, scheduleFields } from './queue.js';
import { startWebhooks, type WebhookSettings } from './webhook-server.js';

export interface WorkerOptions {
  readonly settings: SyncSettings;
  readonly kinds: readonly JobKind[];
  readonly every: Schedule;
  readonly fullEvery: Schedule;
  /** The reconcile of the recent window (settings.reconcileWindow); none when absent. */
  readonly recentEvery?: Schedule;
  readonly reportEvery: Schedule;
  readonly metricsHost: string;
  readonly metricsPort: number;
  /** ms without a successful run of a kind before /healthz fails. */
  readonly staleAfterMs: number;
  /** ms a job's BullMQ lock lives unrenewed; a killed worker's job is handed back after about this long. */
  readonly jobLockMs: number;
  /** ms a run that found the database file busy waits in the queue; default PUT_BACK_MS (tests shorten it). */
  readonly putBackMs?: number;
  readonly logger: Logger;
  /** --notify: where run failures and recoveries are posted. */
  readonly notifyUrl?: string;
  /** --webhook-port: where the service's webhooks queue incremental runs; none when absent. */
  readonly webhook?: WebhookSettings;
  /** The jobs it runs: jobs/index.ts's JOBS, handed in by whoever composes the program (the bin, a test). */
  readonly jobs: JobRegistry;
}

export interface RunningWorker {
  readonly metricsPort: number;
  /** The webhook port, when --webhook-port is set. */
  readonly webhookPort?: number;
  readonly metrics: WorkerMetrics;
  /** Resolves with a reason when the worker must stop on its own (its worker lock was lost). */
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
  const startedAt = Date.now();
  let queue: Queue | undefined;
  let redisUp = () => true;
  let health: () => Promise<HealthReport> = async () => ({
    status: 'unhealthy',
    redis: 'unreachable',
    kinds: {},
    reasons: ['the worker is starting'],
  });
  try {
    const metrics = createWorkerMetrics(() => queue, logger, { redisUp: () => redisUp() });
    const server = await startMetricsServer({
      host: options.metricsHost,
      port: options.metricsPort,
      registry: metrics.registry,
      health: () => health(),
      logger,
    });
    cleanups.push(() => server.close());
    // Bound before the database is locked, so a busy port refuses the start with nothing taken.
    const webhooks = options.webhook
      ? await startWebhooks(
          options.webhook,
          options.kinds,
          () => queue,
          metrics,
          logger,
          () => redisUp(),
        )
      : undefined;
    if (webhooks) cleanups.push(() => webhooks.close());
    assertOutputFolder(settings.reportDir, '--report-dir');

    const lock = acquireWriterLock({
      db: settings.db,
      command: 'worker',
      role: 'worker',
      logger,
      onLost: reportFatal,
    });
    cleanups.push(async () => lock.release());
    logger.info({ db: settings.db, lock: lock.path }, 'holding the worker lock of the database');
    const busy = new BusyFile();

    const redis = await connectRedis(settings.redisUrl, 'tsync-worker');
    cleanups.push(() => closeRedis(redis));
    const syncQueue = createSyncQueue(settings.redisUrl, settings.redisPrefix);
    // BullMQ reconnects by itself; the watch below logs the outage once.
    syncQueue.on('error', (error) => logger.debug({ err: toError(error) }, 'queue connection error'));
    // While Redis is down a polite close would wait for it; the shutdown bound matters more.
    cleanups.push(() =>
      redisUp() ? syncQueue.close() : boundedRedisCall(syncQueue.disconnect(), DOWN_STEP_MS),
    );
    const plan = {
      kinds: options.kinds,
      incremental: options.every,
      full: options.fullEvery,
      recent: options.recentEvery,
      report: options.reportEvery,
    };
    await registerSchedules(syncQueue, plan);
    // Redis may come back empty (restarted without persistence): the schedules must exist again.
    const watch = watchRedis({
      redis,
      redisUrl: settings.redisUrl,
      logger,
      onBack: () => registerSchedules(syncQueue, plan),
    });
    cleanups.push(async () => watch.stop());
    redisUp = watch.isUp;
    queue = syncQueue;
    // Stopping, the webhook endpoint answers 503 before the queue closes (cleanups run last first).
    cleanups.push(async () => {
      queue = undefined;
    });
    const { kinds, staleAfterMs } = options;
    const busyAfterMs = 'every' in options.every ? options.every.every : staleAfterMs;
    health = () =>
      checkHealth({ redis, kinds, staleAfterMs, startedAt, metrics, busy: () => busy.state(), busyAfterMs });
    logger.info({ url: `http://${options.metricsHost}:${server.port}` }, 'serving /metrics and /healthz');

    await runJobs(options, metrics, busy, syncQueue, cleanups, () => redisUp());
    logger.info(
      {
        kinds: options.kinds,
        ...scheduleFields('every', options.every),
        ...scheduleFields('full_every', options.fullEvery),
        ...(options.recentEvery ? scheduleFields('recent_every', options.recentEvery) : {}),
        recent_window_ms: settings.reconcileWindow,
      },
      'worker started',
    );

    let stopping: Promise<void> | undefined;
    return {
      metricsPort: server.port,
      ...(webhooks ? { webhookPort: webhooks.port } : {}),
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

async function runJobs(
  options: WorkerOptions,
  metrics: WorkerMetrics,
  busy: BusyFile,
  queue: Queue,
  cleanups: Cleanup[],
  redisUp: () => boolean,
): Promise<void> {
  const { settings, logger } = options;
  const shutdown = new AbortController();
  const notifier = options.notifyUrl
    ? new Notifier({
        url: options.notifyUrl,
        apiKey: settings.apiKey,
        command: 'worker',
        db: settings.db,
        logger,
      })
    : undefined;
  const run = createProcessor({
    jobs: options.jobs,
    settings,
    metrics,
    logger,
    busy,
    jobState: (jobId) => queue.getJobState(jobId),
    putBackMs: options.putBackMs ?? PUT_BACK_MS,
    shutdown: shutdown.signal,
    ...(notifier ? { notifier } : {}),
  });
  // The job in hand (one at a time: ./bull-worker.ts), settled once it has ended: what a shutdown waits for.
  let inHand: Promise<unknown> = Promise.resolve();
  const processor: Processor = (job, token, signal) => {
    const running = run(job, token, signal);
    inHand = running.catch(() => {});
    return running;
  };
  const worker = createBullWorker(processor, {
    redisUrl: settings.redisUrl,
    prefix: settings.redisPrefix,
    lockMs: options.jobLockMs,
    logger,
  });
  cleanups.push(async () => {
    // close() first, so BullMQ asks for no further job; it resolves once the job in hand ended. A
    // job it hands over anyway (asked for with the completion of the job in hand, or found by a
    // blocking wait already answered) reaches the processor after the abort, which puts it back.
    const closing = worker.close();
    // The reason reaches whatever the run was awaiting; an InterruptedError says what happened.
    shutdown.abort(new InterruptedError('the worker is shutting down (SIGTERM/SIGINT)'));
    // BullMQ's close talks to Redis; during an outage it would wait for Redis to come back. Once
    // no job runs here any more (the one in hand has committed), there is nothing left to wait for.
    const idleWhileDown = inHand.then(async () => {
      if (redisUp()) return closing;
      closing.catch(() => {});
      // Its connections would keep reconnecting (and the process alive) until Redis returns.
      await boundedRedisCall(worker.disconnect(), DOWN_STEP_MS);
    });
    await Promise.race([closing, idleWhileDown]);
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

/**
 * ms a closing step that needs Redis may take while Redis is down: BullMQ's disconnect waits for a
 * client that is reconnecting, so the step ends on this bound.
 */
const DOWN_STEP_MS = 250;

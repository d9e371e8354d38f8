/**
 * Prometheus metrics of the worker, in a registry of its own (never prom-client's global one, so
 * several workers in one process, as in tests, do not collide). Queue counts are read from Redis at
 * each scrape, within QUEUE_READ_TIMEOUT_MS: during a Redis outage /metrics still answers at once,
 * the queue gauge left empty and `tsync_queue_jobs_readable` at 0 (a stale count would look healthy).
 */
import type { Queue } from 'bullmq';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { isBucketUrl } from '../analytics/publish/bucket-url.js';
import { TsyncError } from '../errors.js';
import type { JobKind } from '../kinds.js';
import type { Logger } from '../log.js';
import type { KindSummary, SyncMode } from '../sync/types.js';
import { within } from '../util/within.js';
import type { WebhookAnswer } from './queue.js';

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
/** ms a scrape waits for the queue counts (BullMQ's connection queues commands while Redis is down). */
const QUEUE_READ_TIMEOUT_MS = 1_000;

/** How the last run of a kind ended in this process. */
export interface LastOutcome {
  readonly outcome: 'ok' | 'failed' | 'interrupted';
  /** ms since the epoch */
  readonly at: number;
  /** false when no retry can fix the failure (a refused key, a bad setting). */
  readonly retryable: boolean;
  /** The error's code (AUTH, CONFIG, ...) when known. */
  readonly code: string | null;
  readonly reason: string | null;
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;

/**
 * `queue`: the queue, or a getter for one attached once the worker has connected. `redisUp`: false
 * while Redis is known to be down, when the scrape does not even ask.
 */
export function createWorkerMetrics(
  queue: Queue | undefined | (() => Queue | undefined),
  logger: Logger,
  options: { readonly redisUp?: () => boolean } = {},
) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tsync_' });
  const kindLabels = ['kind'] as const;
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter({ name, help, labelNames, registers: [registry] });
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Gauge({ name, help, labelNames, registers: [registry] });
  const kindCounter = (name: string, help: string) => counter(name, help, kindLabels);
  const last = gauge(
    'tsync_last_success_timestamp_seconds',
    'Unix time of the last sync run of a kind that ended ok',
    kindLabels,
  );
  const runs = counter('tsync_runs_total', 'Sync runs by kind, mode and outcome (ok, failed, interrupted)', [
    'kind',
    'mode',
    'outcome',
  ]);
  const upserted = kindCounter('tsync_jobs_upserted_total', 'Job records inserted or updated in DuckDB');
  const quarantined = kindCounter(
    'tsync_records_quarantined_total',
    'Records that failed validation and were quarantined',
  );
  const words = kindCounter(
    'tsync_words_loaded_total',
    'Words of the job records inserted or updated in DuckDB',
  );
  const requests = kindCounter('tsync_requests_total', 'HTTP requests made to the listing service');
  const retries = kindCounter('tsync_request_retries_total', 'HTTP requests retried within a run');
  const pauses = kindCounter(
    'tsync_rate_limit_pauses_total',
    "Pauses of every request on the service's Retry-After (a 429, a 503 with Retry-After)",
  );
  const published = gauge(
    'tsync_last_publish_timestamp_seconds',
    'Unix time of the last publish of the dataset (--publish) that ended, by target (folder or bucket); absent until one has',
    ['target'],
  );
  const busy = counter(
    'tsync_file_busy_total',
    'Runs that found the database file held by another writer past --lock-wait, by queue job, put back for later',
    ['queue_job'],
  );
  const duration = new Histogram({
    name: 'tsync_run_duration_seconds',
    help: 'Wall time of sync runs',
    labelNames: ['kind', 'mode'] as const,
    buckets: [1, 4, 16, 64, 256, 1024, 4096],
    registers: [registry],
  });
  const webhooks = counter(
    'tsync_webhook_requests_total',
    'Webhook requests by answer: queued, coalesced (a queued run took it), unknown_event, other_kind, malformed, too_large, rate_limited, not_found, unavailable',
    ['answer'],
  );
  const freshness = new Histogram({
    name: 'tsync_freshness_seconds',
    help: "Seconds from a job's completed_at upstream to the commit that brought it to the file done or failed",
    labelNames: kindLabels,
    buckets: [0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600, 7200],
    registers: [registry],
  });
  // One read per scrape, shared by the two gauges below: prom-client collects every metric of a
  // scrape at once, so each gauge awaits the same read and both report what this scrape saw.
  let reading: Promise<Counts | undefined> | undefined;
  const readQueue = async (): Promise<Counts | undefined> => {
    const current = typeof queue === 'function' ? queue() : queue;
    if (!current || options.redisUp?.() === false) return undefined;
    const counts = current.getJobCounts(...QUEUE_STATES).catch((error: unknown) => {
      logger.debug({ err: error }, 'could not read queue counts for /metrics');
      return undefined;
    });
    return within(counts, QUEUE_READ_TIMEOUT_MS, undefined);
  };
  const readOnce = (): Promise<Counts | undefined> => {
    reading ??= readQueue().finally(() => {
      reading = undefined;
    });
    return reading;
  };
  new Gauge({
    name: 'tsync_queue_jobs_readable',
    help: '1 when tsync_queue_jobs could be read from Redis at this scrape, 0 when not (Redis down)',
    registers: [registry],
    async collect() {
      this.set((await readOnce()) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'tsync_queue_jobs',
    help: 'Jobs in the sync queue by state, read at scrape time (absent when Redis is down)',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const counts = await readOnce();
      this.reset();
      if (counts) for (const state of QUEUE_STATES) this.set({ state }, counts[state] ?? 0);
    },
  });

  const successes = new Map<JobKind, number>();
  const outcomes = new Map<JobKind, LastOutcome>();
  return {
    registry,
    /** A run that ended (ok, failed or interrupted) with a summary. */
    recordRun(summary: KindSummary): void {
      const { kind, mode, outcome } = summary;
      runs.inc({ kind, mode, outcome });
      upserted.inc({ kind }, summary.inserted + summary.updated);
      quarantined.inc({ kind }, summary.quarantined);
      words.inc({ kind }, summary.words);
      requests.inc({ kind }, summary.requests);
      retries.inc({ kind }, summary.retries);
      pauses.inc({ kind }, summary.pauses);
      // Both instants are the run's own (src/sync/kind-summary.ts), never unparsable.
      const at = Date.parse(summary.finishedAt);
      duration.observe({ kind, mode }, Math.max(0, at - Date.parse(summary.startedAt)) / 1_000);
      if (outcome === 'ok') {
        successes.set(kind, at);
        last.set({ kind }, at / 1_000);
      }
      outcomes.set(kind, { outcome, at, retryable: true, code: null, reason: summary.error ?? null });
    },
    /** A run that threw before it could produce a summary. */
    recordFailure(kind: JobKind, mode: SyncMode, error?: Error): void {
      runs.inc({ kind, mode, outcome: 'failed' });
      const known = error instanceof TsyncError ? error : undefined;
      outcomes.set(kind, {
        outcome: 'failed',
        at: Date.now(),
        retryable: known ? known.retryable : true,
        code: known ? known.code : null,
        reason: known ? known.toLine() : (error?.message ?? null),
      });
    },
    /** How a webhook request was answered (./webhook-server.ts). */
    recordWebhook(answer: WebhookAnswer): void {
      webhooks.inc({ answer });
    },
    /** The seconds from `completed_at` upstream to the commit in the file, one per job. */
    recordFreshness(kind: JobKind, seconds: readonly number[]): void {
      for (const s of seconds) freshness.observe({ kind }, s);
    },
    /** A run of job `job` put back (or ended) because the database file was busy. */
    recordBusy(job: string): void {
      busy.inc({ queue_job: job });
    },
    /** A publish of the dataset to `location` (--publish: a folder or s3://) that ended at `at`. */
    recordPublish(location: string, at: Date): void {
      published.set({ target: isBucketUrl(location) ? 'bucket' : 'folder' }, at.getTime() / 1_000);
    },
    /** ms since the epoch of the kind's last run with outcome ok, if any in this process. */
    lastSuccess: (kind: JobKind): number | undefined => successes.get(kind),
    lastOutcome: (kind: JobKind): LastOutcome | undefined => outcomes.get(kind),
  };
}

type Counts = Record<string, number>;

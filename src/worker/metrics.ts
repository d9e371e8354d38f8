/**
 * Prometheus metrics of the worker, in a registry of its own (never prom-client's global one, so
 * several workers in one process, as in tests, do not collide). Sync figures are recorded when a
 * run ends; queue counts are read from Redis at each scrape.
 */
import type { Queue } from 'bullmq';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Logger } from '../log.js';
import type { KindSummary, SyncKind } from '../sync/types.js';
import type { SyncMode } from './queue.js';

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

export interface WorkerMetrics {
  readonly registry: Registry;
  /** Records a run that ended (ok, failed or interrupted) with a summary. */
  recordRun(summary: KindSummary): void;
  /** Records a run that threw before it could produce a summary. */
  recordFailure(kind: SyncKind, mode: SyncMode): void;
  /** ms since the epoch of the kind's last run with outcome ok, if any in this process. */
  lastSuccess(kind: SyncKind): number | undefined;
}

export function createWorkerMetrics(queue: Queue | undefined, logger: Logger): WorkerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tsync_' });
  const kindLabels = ['kind'] as const;
  const last = new Gauge({
    name: 'tsync_last_success_timestamp_seconds',
    help: 'Unix time of the last sync run of a kind that ended ok',
    labelNames: kindLabels,
    registers: [registry],
  });
  const runs = new Counter({
    name: 'tsync_runs_total',
    help: 'Sync runs by kind, mode and outcome (ok, failed, interrupted)',
    labelNames: ['kind', 'mode', 'outcome'] as const,
    registers: [registry],
  });
  const counter = (name: string, help: string) =>
    new Counter({ name, help, labelNames: kindLabels, registers: [registry] });
  const upserted = counter('tsync_jobs_upserted_total', 'Job records inserted or updated in DuckDB');
  const quarantined = counter(
    'tsync_records_quarantined_total',
    'Records that failed validation and were quarantined',
  );
  const requests = counter('tsync_requests_total', 'HTTP requests made to the listing service');
  const retries = counter('tsync_request_retries_total', 'HTTP requests retried within a run');
  const duration = new Histogram({
    name: 'tsync_run_duration_seconds',
    help: 'Wall time of sync runs',
    labelNames: ['kind', 'mode'] as const,
    // 1 s .. ~68 min
    buckets: [1, 4, 16, 64, 256, 1024, 4096],
    registers: [registry],
  });
  new Gauge({
    name: 'tsync_queue_jobs',
    help: 'Jobs in the sync queue by state, read at scrape time',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      if (!queue) return;
      try {
        const counts = await queue.getJobCounts(...QUEUE_STATES);
        for (const state of QUEUE_STATES) this.set({ state }, counts[state] ?? 0);
      } catch (error) {
        // A scrape during a Redis outage keeps the last counts; /healthz reports the outage.
        logger.debug({ err: error }, 'could not read queue counts for /metrics');
      }
    },
  });

  const successes = new Map<SyncKind, number>();
  return {
    registry,
    recordRun(summary) {
      const { kind, mode, outcome } = summary;
      runs.inc({ kind, mode, outcome });
      upserted.inc({ kind }, summary.inserted + summary.updated);
      quarantined.inc({ kind }, summary.quarantined);
      requests.inc({ kind }, summary.requests);
      retries.inc({ kind }, summary.retries);
      const started = Date.parse(summary.startedAt);
      const finished = Date.parse(summary.finishedAt);
      if (Number.isFinite(started) && Number.isFinite(finished)) {
        duration.observe({ kind, mode }, Math.max(0, finished - started) / 1_000);
      }
      if (outcome === 'ok') {
        const at = Number.isFinite(finished) ? finished : Date.now();
        successes.set(kind, at);
        last.set({ kind }, at / 1_000);
      }
    },
    recordFailure(kind, mode) {
      runs.inc({ kind, mode, outcome: 'failed' });
    },
    lastSuccess: (kind) => successes.get(kind),
  };
}

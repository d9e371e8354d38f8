/**
 * The sync queue: its name, the options every job gets, and the scheduler ids. All BullMQ keys live
 * under the configured prefix (`${prefix}:sync:*`) through BullMQ's `prefix` option; BullMQ forbids
 * ':' in queue names, so the prefix cannot go into the name itself.
 */
import { type JobsOptions, Queue } from 'bullmq';
import type { JobKind } from '../kinds.js';
import type { SyncMode } from '../sync/types.js';
import { bullConnection } from './connection.js';

export const SYNC_QUEUE = 'sync';
/** Name of the sync job inside the queue (jobs/sync.ts). */
export const SYNC_JOB = 'sync';
/** Name of the scheduled billing report job (jobs/billing-report.ts); it shares the queue, so it
 * never runs while a sync writes the file. */
export const REPORT_JOB = 'billing-report';
export const REPORT_SCHEDULER_ID = 'report:billing';

/** A job's mode is a run's (src/sync/types.ts): the schedulers and payloads name them alike. */
export { SYNC_MODES, type SyncMode } from '../sync/types.js';

/**
 * Attempts and backoff across runs (p-retry already retries single requests inside a run):
 * 5 attempts, 30 s doubling (30 s, 1 m, 2 m, 4 m). Finished jobs are kept for inspection,
 * a week (completed) or a month (failed), and at most 1,000 of each.
 */
export const JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 30_000 },
  removeOnComplete: { age: 7 * 86_400, count: 1_000 },
  removeOnFail: { age: 30 * 86_400, count: 1_000 },
} as const satisfies JobsOptions;

/** Stable per kind and mode, so registering again updates the one schedule instead of adding one. */
export function schedulerId(kind: JobKind, mode: SyncMode): string {
  return `sync:${kind}:${mode}`;
}

export function createSyncQueue(redisUrl: string, prefix: string): Queue {
  return new Queue(SYNC_QUEUE, {
    connection: bullConnection(redisUrl),
    prefix,
    defaultJobOptions: JOB_OPTIONS,
  });
}

/**
 * Runs asked for by the service's webhooks: an incremental sync of one kind, added to the sync
 * queue the schedules use, so it runs through the same processor (one job at a time, the file's
 * writer lock, the memory budget) and never in place of a scheduled run.
 *
 * Coalescing, by BullMQ's deduplication in simple mode with one id per kind: while an event run of
 * a kind waits, an add returns that run and queues nothing. The processor drops the id as the run
 * starts (releaseEventRun), so while it runs one more event run may queue, and no more: a job
 * finished during a run's walk is fetched by the next run.
 */
import { randomUUID } from 'node:crypto';
import type { Job, Queue } from 'bullmq';
import type { JobKind } from '../kinds.js';
import { SYNC_JOB } from './queue.js';
import type { ScheduledSyncData } from './schedule.js';

/** The deduplication id of a kind's waiting event run. */
export function eventDedupId(kind: JobKind): string {
  return `event-${kind}`;
}

/** What became of an event: a run queued, or one already waiting took it. */
export type EventRun = 'queued' | 'coalesced';

/** How a webhook request was answered: the label of tsync_webhook_requests_total. */
export type WebhookAnswer =
  | EventRun
  | 'unknown_event'
  | 'other_kind'
  | 'malformed'
  | 'too_large'
  | 'rate_limited'
  | 'not_found'
  | 'unavailable';

export async function enqueueEventRun(queue: Queue, kind: JobKind): Promise<EventRun> {
  // BullMQ refuses ':' in a custom job id.
  const jobId = `event-${kind}-${randomUUID()}`;
  const data: ScheduledSyncData = { kind, mode: 'incremental' };
  const job = await queue.add(SYNC_JOB, data, { jobId, deduplication: { id: eventDedupId(kind) } });
  return job.id === jobId ? 'queued' : 'coalesced';
}

/** As an event run starts: the next event queues one run behind it. Other jobs: nothing. */
export async function releaseEventRun(job: Job): Promise<void> {
  if (job.deduplicationId !== undefined) await job.removeDeduplicationKey();
}

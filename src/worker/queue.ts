/**
 * The sync queue: its name, the options every job gets, its schedules, and the runs the service's
 * webhooks ask for. All BullMQ keys live under the configured prefix (`${prefix}:sync:*`) through
 * BullMQ's `prefix` option; BullMQ forbids ':' in queue names, so the prefix cannot go into the name.
 *
 * Schedules (`--every`, `--recent-every`, `--full-every`, `--report-every`) are BullMQ job
 * schedulers with stable ids, so any number of restarts leaves one schedule per kind and mode.
 *
 * Event runs (a webhook's incremental sync of one kind) go through the same queue and processor,
 * never in place of a scheduled run. They coalesce by BullMQ's deduplication, one id per kind,
 * dropped as the run starts (releaseEventRun): while an event run of a kind waits, an event queues
 * nothing; while one runs, one more may queue, and no more.
 */
import { randomUUID } from 'node:crypto';
import { type Job, type JobsOptions, Queue, QueueEvents } from 'bullmq';
import type { Schedule } from '../config/schedule.js';
import { ConfigError, toError } from '../errors.js';
import { JOB_KINDS, type JobKind } from '../kinds.js';
import { SYNC_MODES, type SyncMode } from '../sync/types.js';
import { bullConnection } from './connection.js';

export const SYNC_QUEUE = 'sync';
/** Name of the sync job inside the queue (jobs/sync.ts). */
export const SYNC_JOB = 'sync';
/** The scheduled billing report job (jobs/billing-report.ts): in this queue, it never runs beside a sync. */
export const REPORT_JOB = 'billing-report';
const REPORT_SCHEDULER_ID = 'report:billing';

/** The payload a sync job carries; jobs/sync.ts validates it. */
export interface ScheduledSyncData {
  readonly kind: JobKind;
  readonly mode: SyncMode;
}

/** Attempts across runs (p-retry retries single requests inside one); finished jobs kept for inspection. */
const JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 30_000 },
  removeOnComplete: { age: 7 * 86_400, count: 1_000 },
  removeOnFail: { age: 30 * 86_400, count: 1_000 },
} as const satisfies JobsOptions;

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

/** The sync queue's events (a job's completion and failure), for a caller that waits on its jobs. */
export function syncQueueEvents(redisUrl: string, prefix: string): QueueEvents {
  return new QueueEvents(SYNC_QUEUE, { connection: bullConnection(redisUrl), prefix });
}

/** A schedule as log fields: `<name>_ms` for an interval, `<name>_cron` for a cron expression. */
export function scheduleFields(name: string, schedule: Schedule): Record<string, number | string> {
  return 'every' in schedule ? { [`${name}_ms`]: schedule.every } : { [`${name}_cron`]: schedule.pattern };
}

export interface SchedulePlan {
  readonly kinds: readonly JobKind[];
  readonly incremental: Schedule;
  readonly full: Schedule;
  /** The reconcile of the recent window; none when absent (its scheduler is removed). */
  readonly recent?: Schedule | undefined;
  readonly report: Schedule;
}

/**
 * Upserts the schedulers of the selected kinds and removes the others'. An incremental `every`
 * schedule runs at once when first registered; a reconcile (full or recent) one interval later, so
 * a deploy does not start with a reconcile of every kind.
 */
export async function registerSchedules(queue: Queue, plan: SchedulePlan, now = Date.now()): Promise<void> {
  const flags = { incremental: '--every', full: '--full-every', recent: '--recent-every' } as const;
  for (const kind of JOB_KINDS) {
    for (const mode of SYNC_MODES) {
      const id = schedulerId(kind, mode);
      const schedule = plan[mode];
      if (!plan.kinds.includes(kind) || schedule === undefined) await removeSchedule(queue, id);
      else {
        const data: ScheduledSyncData = { kind, mode };
        const later = mode === 'incremental' ? undefined : now;
        await upsertSchedule(queue, id, schedule, flags[mode], { name: SYNC_JOB, data }, later);
      }
    }
  }
  await upsertSchedule(queue, REPORT_SCHEDULER_ID, plan.report, '--report-every', {
    name: REPORT_JOB,
    data: {},
  });
}

/**
 * Removes scheduler `id` and the run of it already due: BullMQ removes only the next iteration
 * (delayed), not one waiting to run, such as the incremental sync a start queues at once, which a
 * worker that no longer selects its kind would otherwise run once more.
 */
async function removeSchedule(queue: Queue, id: string): Promise<void> {
  if (!(await queue.removeJobScheduler(id))) return;
  const due = await queue.getJobs(['waiting', 'prioritized']);
  // A job a worker took meanwhile is locked and stays: it is running already.
  await Promise.all(due.filter((job) => job.repeatJobKey === id).map((job) => job.remove().catch(() => {})));
}

/** An `every` schedule starts one interval after `later` when given; a bad cron names `flag`. */
async function upsertSchedule(
  queue: Queue,
  id: string,
  schedule: Schedule,
  flag: string,
  job: { readonly name: string; readonly data: object },
  later?: number,
): Promise<void> {
  const repeat =
    'every' in schedule
      ? { every: schedule.every, ...(later === undefined ? {} : { startDate: later + schedule.every }) }
      : { pattern: schedule.pattern, tz: 'UTC' };
  try {
    await queue.upsertJobScheduler(id, repeat, job);
  } catch (error) {
    if ('pattern' in schedule)
      throw new ConfigError(flag, `"${schedule.pattern}": ${toError(error).message}`);
    throw error;
  }
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
  const job = await queue.add(SYNC_JOB, data, { jobId, deduplication: { id: `event-${kind}` } });
  return job.id === jobId ? 'queued' : 'coalesced';
}

/** Whether `job` is a webhook's run (enqueueEventRun): nobody awaits it. */
export function isEventRun(job: Job): boolean {
  return job.deduplicationId !== undefined;
}

/** As an event run starts: the next event queues one run behind it. Other jobs: nothing. */
export async function releaseEventRun(job: Job): Promise<void> {
  if (isEventRun(job)) await job.removeDeduplicationKey();
}

/**
 * When sync jobs run: the schedules of `--every`, `--recent-every` and `--full-every`
 * (src/config/schedule.ts), registered as BullMQ job schedulers with stable ids. Upserting
 * with an unchanged interval keeps the pending iteration; a new interval replaces it; kinds no
 * longer selected lose their schedulers. So any number of restarts leaves one schedule per kind
 * and mode.
 */
import type { Queue } from 'bullmq';
import type { Schedule } from '../config/schedule.js';
import { ConfigError, toError } from '../errors.js';
import { JOB_KINDS, type JobKind } from '../kinds.js';
import {
  REPORT_JOB,
  REPORT_SCHEDULER_ID,
  SYNC_JOB,
  SYNC_MODES,
  type SyncMode,
  schedulerId,
} from './queue.js';

export function describeSchedule(schedule: Schedule): string {
  return 'every' in schedule ? `every ${schedule.every} ms` : `cron "${schedule.pattern}" (UTC)`;
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
  /** The billing report job's schedule. */
  readonly report: Schedule;
}

/** The payload a scheduled job carries; jobs/sync.ts validates it. */
export interface ScheduledSyncData {
  readonly kind: JobKind;
  readonly mode: SyncMode;
}

/**
 * Upserts the schedulers of the selected kinds and removes those of the others. An incremental
 * `every` schedule runs at once on first registration (a fresh worker syncs now); a reconcile
 * (full or recent) first runs one interval later, so deploying does not start with a reconcile of
 * every kind.
 */
export async function registerSchedules(queue: Queue, plan: SchedulePlan, now = Date.now()): Promise<void> {
  for (const kind of JOB_KINDS) {
    for (const mode of SYNC_MODES) {
      const id = schedulerId(kind, mode);
      const schedule = scheduleOf(plan, mode);
      if (!plan.kinds.includes(kind) || schedule === undefined) {
        await queue.removeJobScheduler(id);
        continue;
      }
      const later = mode !== 'incremental';
      const repeat =
        'every' in schedule
          ? { every: schedule.every, ...(later ? { startDate: now + schedule.every } : {}) }
          : { pattern: schedule.pattern, tz: 'UTC' };
      const data: ScheduledSyncData = { kind, mode };
      try {
        await queue.upsertJobScheduler(id, repeat, { name: SYNC_JOB, data });
      } catch (error) {
        const flag = { incremental: '--every', full: '--full-every', recent: '--recent-every' }[mode];
        if ('pattern' in schedule)
          throw new ConfigError(flag, `"${schedule.pattern}": ${toError(error).message}`);
        throw error;
      }
    }
  }
  await upsertReportSchedule(queue, plan.report);
}

function scheduleOf(plan: SchedulePlan, mode: SyncMode): Schedule | undefined {
  return mode === 'full' ? plan.full : mode === 'recent' ? plan.recent : plan.incremental;
}

async function upsertReportSchedule(queue: Queue, schedule: Schedule): Promise<void> {
  const repeat = 'every' in schedule ? { every: schedule.every } : { pattern: schedule.pattern, tz: 'UTC' };
  try {
    await queue.upsertJobScheduler(REPORT_SCHEDULER_ID, repeat, { name: REPORT_JOB, data: {} });
  } catch (error) {
    if ('pattern' in schedule)
      throw new ConfigError('--report-every', `"${schedule.pattern}": ${toError(error).message}`);
    throw error;
  }
}

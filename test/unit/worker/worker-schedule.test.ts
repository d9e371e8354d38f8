/** Job schedulers: registered idempotently, updated in place, removed for kinds no longer synced. */
import type { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { parseSchedule } from '../../../src/config/schedule.js';
import { ConfigError } from '../../../src/errors.js';
import { createSyncQueue, registerSchedules, schedulerId } from '../../../src/worker/queue.js';
import { redisUrl, uniquePrefix } from '../../helpers/redis.js';
import { onCleanup, testRedis } from '../../helpers/worker.js';

function queueFor(prefix: string): Queue {
  testRedis(prefix);
  const queue = createSyncQueue(redisUrl(), prefix);
  onCleanup(() => queue.close());
  return queue;
}

const fiveMinutes = { every: 300_000 };
const daily = { every: 86_400_000 };

async function schedulers(queue: Queue) {
  const list = await queue.getJobSchedulers(0, -1, true);
  return list
    .filter((s) => s.key.startsWith('sync:'))
    .map((s) => ({ key: s.key, every: s.every, pattern: s.pattern, data: s.template?.data }))
    .sort((a, b) => a.key.localeCompare(b.key));
}

describe('worker schedules', () => {
  it('registering again (a restart) leaves one scheduler per kind and mode and no extra jobs', async () => {
    const prefix = uniquePrefix('schedule');
    const queue = queueFor(prefix);
    const plan = {
      kinds: ['pre-recorded', 'live'] as const,
      incremental: fiveMinutes,
      full: daily,
      report: daily,
    };
    await registerSchedules(queue, plan);
    const first = await queue.getJobCounts('waiting', 'delayed');
    await registerSchedules(queue, plan);
    await registerSchedules(queue, plan);

    expect(await schedulers(queue)).toEqual([
      { key: 'sync:live:full', every: 86_400_000, pattern: undefined, data: { kind: 'live', mode: 'full' } },
      {
        key: 'sync:live:incremental',
        every: 300_000,
        pattern: undefined,
        data: { kind: 'live', mode: 'incremental' },
      },
      {
        key: 'sync:pre-recorded:full',
        every: 86_400_000,
        pattern: undefined,
        data: { kind: 'pre-recorded', mode: 'full' },
      },
      {
        key: 'sync:pre-recorded:incremental',
        every: 300_000,
        pattern: undefined,
        data: { kind: 'pre-recorded', mode: 'incremental' },
      },
    ]);
    expect(await queue.getJobCounts('waiting', 'delayed')).toEqual(first);
  });

  it('runs the incremental sync at once and the first full reconcile one interval later', async () => {
    const queue = queueFor(uniquePrefix('schedule'));
    await registerSchedules(queue, { kinds: ['live'], incremental: fiveMinutes, full: daily, report: daily });
    const waiting = (await queue.getJobs(['waiting'])).filter((j) => j.name === 'sync');
    const delayed = (await queue.getJobs(['delayed'])).filter((j) => j.name === 'sync');
    expect(waiting.map((j) => j.data)).toEqual([{ kind: 'live', mode: 'incremental' }]);
    expect(delayed.map((j) => j.data)).toEqual([{ kind: 'live', mode: 'full' }]);
    expect(delayed[0]?.opts.attempts).toBe(5);
  });

  it('registers the recent-window reconcile one interval later, and removes it when no longer asked for', async () => {
    const queue = queueFor(uniquePrefix('schedule'));
    const hourly = { every: 3_600_000 };
    await registerSchedules(queue, {
      kinds: ['live'],
      incremental: fiveMinutes,
      full: daily,
      recent: hourly,
      report: daily,
    });
    const delayed = (await queue.getJobs(['delayed'])).filter((j) => j.name === 'sync');
    expect(delayed.map((j) => j.data.mode).sort()).toEqual(['full', 'recent']);
    expect((await schedulers(queue)).map((s) => [s.key, s.every])).toContainEqual([
      'sync:live:recent',
      3_600_000,
    ]);
    await registerSchedules(queue, { kinds: ['live'], incremental: fiveMinutes, full: daily, report: daily });
    expect((await schedulers(queue)).map((s) => s.key)).not.toContain('sync:live:recent');
  });

  it('a restart with a new interval or a cron expression updates the schedule in place', async () => {
    const queue = queueFor(uniquePrefix('schedule'));
    await registerSchedules(queue, {
      kinds: ['pre-recorded'],
      incremental: fiveMinutes,
      full: daily,
      report: daily,
    });
    await registerSchedules(queue, {
      kinds: ['pre-recorded'],
      incremental: { every: 60_000 },
      full: { pattern: '0 3 * * *' },
      report: daily,
    });

    const list = await schedulers(queue);
    expect(list.map((s) => [s.key, s.every, s.pattern])).toEqual([
      ['sync:pre-recorded:full', undefined, '0 3 * * *'],
      ['sync:pre-recorded:incremental', 60_000, undefined],
    ]);
    // One pending iteration per scheduler, not one per registration.
    const pending = (await queue.getJobs(['waiting', 'delayed'])).filter((j) => j.name === 'sync');
    expect(pending.map((j) => j.data.mode).sort()).toEqual(['full', 'incremental']);
  });

  it('removes the schedulers of a kind no longer selected', async () => {
    const queue = queueFor(uniquePrefix('schedule'));
    await registerSchedules(queue, {
      kinds: ['pre-recorded', 'live'],
      incremental: fiveMinutes,
      full: daily,
      report: daily,
    });
    await registerSchedules(queue, { kinds: ['live'], incremental: fiveMinutes, full: daily, report: daily });
    expect((await schedulers(queue)).map((s) => s.key)).toEqual([
      schedulerId('live', 'full'),
      schedulerId('live', 'incremental'),
    ]);
  });

  it('a restart without a kind leaves no run of its schedulers waiting to run', async () => {
    const queue = queueFor(uniquePrefix('schedule'));
    const hourly = { every: 3_600_000 };
    const plan = { incremental: fiveMinutes, full: daily, recent: hourly, report: daily };
    // The worker stopped before it ran the incremental syncs this start queued at once.
    await registerSchedules(queue, { ...plan, kinds: ['pre-recorded', 'live'] });
    await registerSchedules(queue, { ...plan, kinds: ['live'] });

    const pending = (await queue.getJobs(['waiting', 'prioritized', 'delayed'])).filter(
      (j) => j.name === 'sync',
    );
    expect(pending.map((j) => `${j.data.kind} ${j.data.mode}`).sort()).toEqual([
      'live full',
      'live incremental',
      'live recent',
    ]);
  });

  it('reads durations and 5-field cron expressions, and refuses anything else with the flag name', () => {
    expect(parseSchedule('5m', '--every')).toEqual({ every: 300_000 });
    expect(parseSchedule('1d', '--full-every')).toEqual({ every: 86_400_000 });
    expect(parseSchedule('*/10 * * * *', '--every')).toEqual({ pattern: '*/10 * * * *' });
    expect(() => parseSchedule('often', '--every')).toThrow(ConfigError);
    expect(() => parseSchedule('often', '--every')).toThrow(/--every/);
    expect(() => parseSchedule('100ms', '--every')).toThrow(/shorter than 1s/);
    expect(() => parseSchedule('* * *', '--full-every')).toThrow(/--full-every/);
  });

  it('an invalid cron expression is a configuration error naming the flag', async () => {
    const queue = queueFor(uniquePrefix('schedule'));
    const plan = {
      kinds: ['live'] as const,
      incremental: fiveMinutes,
      full: { pattern: '99 99 * * *' },
      report: daily,
    };
    await expect(registerSchedules(queue, plan)).rejects.toThrow(/--full-every/);
    const reportPlan = {
      kinds: ['live'] as const,
      incremental: fiveMinutes,
      full: daily,
      report: { pattern: '99 99 * * *' },
    };
    await expect(registerSchedules(queue, reportPlan)).rejects.toThrow(/--report-every/);
  });

  it('registers one billing report scheduler, updated in place on restart', async () => {
    const queue = queueFor(uniquePrefix('schedule'));
    await registerSchedules(queue, { kinds: ['live'], incremental: fiveMinutes, full: daily, report: daily });
    await registerSchedules(queue, {
      kinds: ['live'],
      incremental: fiveMinutes,
      full: daily,
      report: { pattern: '15 0 * * *' },
    });
    const reports = (await queue.getJobSchedulers(0, -1, true)).filter((s) => s.key === 'report:billing');
    expect(reports.map((s) => s.pattern)).toEqual(['15 0 * * *']);
  });
});

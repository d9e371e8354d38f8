/**
 * The worker beside another writer of its file: it starts while the file is held, its runs are put
 * back for later, /metrics counts them, /healthz turns degraded (still 200) once the file has been
 * busy longer than the run interval, and when the file is free the runs sync it all.
 */
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { command as enqueue } from '../../../src/cli/commands/enqueue.js';
import { JOB_KINDS } from '../../../src/kinds.js';
import {
  acquireWriterLock,
  waitForWriterLock,
  waitingMarkerPath,
} from '../../../src/store/file/writer-lock.js';
import { BusyFile } from '../../../src/worker/processor.js';
import { createSyncQueue, enqueueEventRun, SYNC_JOB } from '../../../src/worker/queue.js';
import { onCleanup } from '../../helpers/cleanup.js';
import { expectMirror } from '../../helpers/mirror.js';
import { redisUrl } from '../../helpers/redis.js';
import { eventually } from '../../helpers/worker.js';
import {
  collect,
  get,
  NO_REPORT_RUN,
  options,
  setup,
  start,
  succeeded,
} from '../../helpers/worker-in-process.js';

/** The value of counter `name` with `job="sync"` in a /metrics text, 0 when absent. */
function syncCount(metrics: string, name: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name}{queue_job="sync"}`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

describe('worker and a busy database file', () => {
  it('starts while another writer holds the file, puts its runs back, says degraded, and syncs once it is free', async () => {
    const { sim, prefix, db } = await setup({ preRecorded: 6, live: 4 });
    const held = acquireWriterLock({ db, command: 'sync' });
    onCleanup(async () => held.release());
    const base = options(sim, db, prefix);
    const running = await start({
      ...base,
      every: { every: 1_000 },
      settings: { ...base.settings, lockWait: 100 },
    });
    let fatal: string | undefined;
    void running.fatal.then((reason) => {
      fatal = reason;
    });

    const holder = `is being written by pid ${process.pid} (transcript-sync sync) on host ${hostname()}`;
    const degraded = await eventually(async () => {
      const health = await get(running, '/healthz');
      const report = JSON.parse(health.body) as { status: string; file_busy: { holder: string } | null };
      return report.status === 'degraded' ? { ...health, report } : undefined;
    }, 'a degraded /healthz');
    expect(degraded.status).toBe(200);
    expect(degraded.report.file_busy?.holder).toContain(holder);
    expect(degraded.body).toContain('longer than the run interval');
    expect(syncCount((await get(running, '/metrics')).body, 'tsync_file_busy_total')).toBeGreaterThan(0);
    expect(JOB_KINDS.map((kind) => running.metrics.lastSuccess(kind))).toEqual([undefined, undefined]);

    held.release();
    await eventually(succeeded(running, JOB_KINDS), 'a successful run of each kind once the file is free');
    const health = JSON.parse((await get(running, '/healthz')).body) as Record<string, unknown>;
    expect(health).toMatchObject({ status: 'ok', file_busy: null });
    expect(fatal).toBeUndefined();
    await running.stop();
    await expectMirror(db, sim.data.all() as unknown as Record<string, unknown>[]);
  });

  it('a run queued by enqueue --wait while the file is held waits put back, then runs and reports', async () => {
    const { sim, prefix, db } = await setup({ preRecorded: 2, live: 3 });
    const held = acquireWriterLock({ db, command: 'sync' });
    onCleanup(async () => held.release());
    const base = options(sim, db, prefix, { kinds: ['live'], every: { every: 1_000 }, putBackMs: 300 });
    const running = await start({ ...base, settings: { ...base.settings, lockWait: 100 } });
    // The scheduler's runs of the same job are put back first.
    await eventually(
      async () => syncCount((await get(running, '/metrics')).body, 'tsync_file_busy_total') > 0,
      'a scheduled run found the file busy',
    );
    const out = collect();
    const flags = { kind: 'live', wait: true, json: true, 'redis-url': redisUrl(), 'redis-prefix': prefix };
    const enqueued = enqueue.run({ flags, positionals: [], stdout: out.stream, stderr: out.stream, env: {} });
    await delay(1_000);
    held.release();
    expect(await enqueued, out.text()).toBe(0);
    expect(JSON.parse(out.text())).toMatchObject({ state: 'completed', summary: { outcome: 'ok' } });
  });

  it('puts a webhook run back while the file is held after the run put back before it was taken off the queue', async () => {
    const { sim, prefix, db } = await setup({ preRecorded: 2, live: 3 });
    const held = acquireWriterLock({ db, command: 'sync' });
    onCleanup(async () => held.release());
    // No scheduled run: the first run put back is the one enqueue --wait queues.
    const base = options(sim, db, prefix, { kinds: ['live'], every: NO_REPORT_RUN, putBackMs: 60_000 });
    await start({ ...base, settings: { ...base.settings, lockWait: 100 } });
    const out = collect();
    const flags = {
      kind: 'live',
      wait: true,
      timeout: '2s',
      json: true,
      'redis-url': redisUrl(),
      'redis-prefix': prefix,
    };
    const context = { flags, positionals: [], stdout: out.stream, stderr: out.stream, env: {} };
    expect(await enqueue.run(context), out.text()).toBe(1);
    expect(JSON.parse(out.text())).toMatchObject({ state: 'removed', reason: 'timeout' });

    // A webhook's run of the same job finds the file still held: nothing else waits, so it does.
    const queue = createSyncQueue(redisUrl(), prefix);
    onCleanup(() => queue.close());
    expect(await enqueueEventRun(queue, 'live')).toBe('queued');
    const [job] = await queue.getJobs(['waiting', 'active', 'delayed', 'completed']);
    const state = await eventually(async () => {
      const now = await job?.getState();
      return now === 'delayed' || now === 'completed' ? now : undefined;
    }, 'the webhook run put back or ended');
    const ended = job?.id === undefined ? undefined : await queue.getJob(job.id);
    expect(state, JSON.stringify(ended?.returnvalue)).toBe('delayed');
  });

  it('lets a writer that waits for the file take it between two runs queued back to back', async () => {
    const { sim, prefix, db } = await setup({ preRecorded: 2, live: 3, latencyMs: 20 });
    const queue = createSyncQueue(redisUrl(), prefix);
    onCleanup(() => queue.close());
    const run = { name: SYNC_JOB, data: { kind: 'live', mode: 'incremental' } };
    await queue.addBulk(Array.from({ length: 400 }, () => run));
    const running = await start(
      options(sim, db, prefix, { kinds: ['live'], every: NO_REPORT_RUN, fullEvery: NO_REPORT_RUN }),
    );
    await eventually(succeeded(running, ['live']), 'a first run of the queue');

    // A sync waiting its --lock-wait: the worker's next run lets it go first.
    const asked = Date.now();
    const lock = await waitForWriterLock({ db, command: 'sync', waitMs: 10_000 });
    const waited = Date.now() - asked;
    const left = await queue.getJobCounts('waiting', 'active');
    lock.release();
    expect(waited).toBeLessThan(5_000);
    expect(existsSync(waitingMarkerPath(db))).toBe(false);
    // Taken between two runs, not after the queue ran dry.
    expect((left['waiting'] ?? 0) + (left['active'] ?? 0)).toBeGreaterThan(0);
    await running.stop();
  });

  it('keeps one run of a job waiting put back, and ends it once a run of the same job took the file', () => {
    const busy = new BusyFile();
    expect(busy.found('sync live', 'a', 'held', 1_000)).toBe('put back');
    // The next scheduled run of the same job: the one put back does its work.
    expect(busy.found('sync live', 'b', 'held', 2_000)).toBe('skipped');
    expect(busy.found('sync pre-recorded', 'c', 'held', 2_000)).toBe('put back');
    expect(busy.state()).toEqual({ since: 1_000, holder: 'held' });
    expect(busy.doneSince('sync live', 'a')).toBe(false);
    busy.taken('sync live', 'd', 3_000);
    expect(busy.state()).toBeUndefined();
    expect(busy.doneSince('sync live', 'a')).toBe(true);
    // The one put back took the file itself: nothing waits any more.
    busy.taken('sync pre-recorded', 'c', 4_000);
    expect(busy.doneSince('sync pre-recorded', 'c')).toBe(false);
    expect(busy.found('sync pre-recorded', 'e', 'held', 5_000)).toBe('put back');
  });
});

/**
 * A stop that begins as the job in hand completes: BullMQ asked Redis for the next job with that
 * completion, so it hands the next one to the processor while the worker closes. That job must not
 * start: it stays in the queue, attempts unspent, for the next worker, and the stop ends.
 */
import { describe, expect, it } from 'vitest';
import type { JobDefinition, JobRegistry } from '../../../src/worker/job-definition.js';
import { createSyncQueue } from '../../../src/worker/queue.js';
import { onCleanup } from '../../helpers/cleanup.js';
import { redisUrl } from '../../helpers/redis.js';
import { eventually } from '../../helpers/worker.js';
import { NO_REPORT_RUN, options, setup, start } from '../../helpers/worker-in-process.js';

/** A job that records each payload it runs with, after waiting for `until`. */
function recording(name: string, until: Promise<void> = Promise.resolve()) {
  const runs: unknown[] = [];
  let started: () => void = () => {};
  const first = new Promise<void>((resolve) => {
    started = resolve;
  });
  const definition: JobDefinition = {
    name,
    async run(data) {
      runs.push(data);
      started();
      await until;
      return { ran: name };
    },
  };
  return { definition, runs, started: first };
}

describe('worker stop', () => {
  it('a job handed over as the stop begins goes back to the queue unstarted, for the next worker', async () => {
    const { sim, prefix, db } = await setup({ preRecorded: 0, live: 0 });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = recording('first', released);
    const second = recording('second');
    const jobs: JobRegistry = { first: first.definition, second: second.definition };
    // No sync schedules and no report run at start: the queue holds the test's two jobs only.
    const opts = options(sim, db, prefix, { kinds: [], jobs, reportEvery: NO_REPORT_RUN });
    const queue = createSyncQueue(redisUrl(), prefix);
    onCleanup(() => queue.close());

    const running = await start(opts);
    const firstJob = await queue.add('first', { n: 1 });
    await first.started;
    const secondJob = await queue.add('second', { n: 2 });
    // The first job ends; its completion, which asks for the next job, is on its way to Redis when
    // the stop begins (an immediate runs before any reply from Redis is read).
    release();
    const stopping = await new Promise<Promise<void>>((resolve) => {
      setImmediate(() => resolve(running.stop()));
    });
    // `resolve` with a promise adopts it: `stopping` is the stop, settled once the worker closed.
    await stopping;

    expect(second.runs).toEqual([]);
    expect(await queue.getJobState(firstJob.id ?? '')).toBe('completed');
    expect(await queue.getJobState(secondJob.id ?? '')).toBe('waiting');
    expect((await queue.getJob(secondJob.id ?? ''))?.attemptsMade).toBe(0);

    const next = await start(opts);
    await eventually(() => (second.runs.length > 0 ? true : undefined), 'the next worker running the job');
    await next.stop();
    expect(second.runs).toEqual([{ n: 2 }]);
    expect(await queue.getJobState(secondJob.id ?? '')).toBe('completed');
  });
});

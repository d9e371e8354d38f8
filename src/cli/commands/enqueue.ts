/** `transcript-sync enqueue`: a sync job per kind on the worker's queue; needs Redis, not the key. */
import type { Job, Queue, QueueEvents } from 'bullmq';
import { refuseGiven, resolveFormat, resolveSettings } from '../../config/resolve.js';
import { ConfigError, NoWorkerError } from '../../errors.js';
import type { SyncSummary } from '../../sync/types.js';
import { formatDuration } from '../../util/duration.js';
import { jsonLine } from '../../util/snake-case.js';
import { within as settledWithin } from '../../util/within.js';
import type { ScheduledSyncData } from '../../worker/queue.js';
import type { Command } from '../command.js';
import { summaryLine } from '../sync-summary.js';

export const command: Command = {
  name: 'enqueue',
  usage:
    'enqueue [--kind pre-recorded|live|all] [--full|--recent] [--wait [--timeout 1h]] [--format table|json | --json]',
  description: [
    'Adds one sync job per kind to the queue of a running `transcript-sync worker` with the same',
    '--redis-prefix. Without --wait it prints the job ids and returns. With --wait it waits until',
    'every job has finished and exits 0 when all succeeded, 1 when one failed or the wait timed out.',
    'With --wait and no worker listening on that --redis-prefix it queues nothing and exits 1 at',
    'once; a job still waiting when --timeout ends is taken off the queue again.',
    '--format json (--json) prints one JSON line per job.',
  ].join('\n'),
  settings: ['kind', 'full', 'recent', 'wait', 'waitTimeout', 'format', 'json', 'redisUrl', 'redisPrefix'],
  async run({ flags, env, stdout }) {
    const settings = resolveSettings(
      ['kind', 'full', 'recent', 'wait', 'waitTimeout', 'redisUrl', 'redisPrefix'],
      [],
      flags,
      env,
    );
    const { redisUrl, redisPrefix, kind: kinds, wait, waitTimeout, full, recent } = settings;
    if (!wait) refuseGiven(flags, ['waitTimeout'], '--wait', 'enqueue without --wait');
    const json = resolveFormat('format', flags, env) === 'json';
    if (full && recent) throw new ConfigError('--recent', 'and --full exclude each other; pick one');
    const mode = full ? 'full' : recent ? 'recent' : 'incremental';
    // BullMQ and ioredis load when a job is queued: never for --help, nor for the settings table.
    const [{ boundedRedisCall, closeRedis, connectRedis }, { createSyncQueue, SYNC_JOB, syncQueueEvents }] =
      await Promise.all([import('../../worker/connection.js'), import('../../worker/queue.js')]);
    // Fail fast with a clear message; BullMQ's own connections would wait for Redis forever.
    await closeRedis(await connectRedis(redisUrl, 'tsync-enqueue'));

    const queue = createSyncQueue(redisUrl, redisPrefix);
    // Listening before adding, so a job that finishes at once is not missed.
    const events = wait ? syncQueueEvents(redisUrl, redisPrefix) : undefined;
    // Should Redis go away meanwhile, both reconnect by themselves and emit an error per attempt,
    // which BullMQ prints with its stack when nothing listens; a job's line says what it means.
    queue.on('error', () => {});
    events?.on('error', () => {});
    // Set once Redis has not answered within REDIS_ANSWER_MS: a polite close would wait for it too.
    const redis = { answers: true };
    try {
      await events?.waitUntilReady();
      // A job nobody takes would only wait out --timeout: say so now, before queuing anything.
      if (events && (await queue.getWorkers()).length === 0) {
        throw new NoWorkerError(
          `no worker is listening on the sync queue under --redis-prefix ${redisPrefix} in this Redis`,
          {
            hint: 'start `transcript-sync worker` with the same --redis-prefix and REDIS_URL, or enqueue without --wait to leave the job for a later worker',
          },
        );
      }
      const jobs = await queue.addBulk(
        kinds.map((kind) => ({ name: SYNC_JOB, data: { kind, mode } satisfies ScheduledSyncData })),
      );
      if (!events) {
        for (const job of jobs) {
          const line = `queued job ${job.id}: ${job.data.kind} ${mode} sync\n`;
          stdout.write(json ? jsonLine({ jobId: job.id, ...job.data, state: 'queued' }) : line);
        }
        return 0;
      }
      const results = await Promise.all(jobs.map((job) => waitFor(job, queue, events, waitTimeout, redis)));
      for (const r of results) stdout.write(json ? jsonLine(r.json) : `${r.line}\n`);
      return results.every((r) => r.ok) ? 0 : 1;
    } finally {
      // A polite close waits for Redis to answer; when it does not, the connections are dropped.
      const closing = redis.answers
        ? Promise.all([events?.close(), queue.close()]).then(() => true)
        : undefined;
      if (closing === undefined || !(await settledWithin(closing, REDIS_ANSWER_MS, false))) {
        closing?.catch(() => {});
        await boundedRedisCall(Promise.all([events?.disconnect(), queue.disconnect()]), DROP_MS);
      }
    }
  },
};

/** ms Redis has to answer a question about a job, or to close, once the wait is over. */
const REDIS_ANSWER_MS = 2_000;
/** ms dropping the connections may take: BullMQ's disconnect waits for a client that reconnects. */
const DROP_MS = 250;

/** A job's outcome: whether it succeeded, its text line(s) and its JSON line. */
async function waitFor(
  job: Job,
  queue: Queue,
  events: QueueEvents,
  timeoutMs: number,
  redis: { answers: boolean },
) {
  const data = job.data as ScheduledSyncData;
  const head = { jobId: job.id, kind: data.kind, mode: data.mode };
  try {
    const summary = (await job.waitUntilFinished(events, timeoutMs)) as SyncSummary;
    const line = summary.kinds.map(summaryLine).join('\n');
    return { ok: summary.outcome === 'ok', line, json: { ...head, state: 'completed', summary } };
  } catch (error) {
    const what = `job ${job.id} (${data.kind} ${data.mode})`;
    const within = `${what} did not finish within ${formatDuration(timeoutMs)}`;
    const asked = job.getState().catch(() => 'unknown');
    const state = await settledWithin(asked, REDIS_ANSWER_MS, undefined);
    if (state === undefined) {
      redis.answers = false;
      const line = `${within}: Redis does not answer, so whether it ran is unknown; check that Redis runs and REDIS_URL (--redis-url) points at it`;
      return { ok: false, line, json: { ...head, state: 'unknown', reason: 'redis_unreachable' } };
    }
    if (state === 'failed') {
      const reason = error instanceof Error ? error.message : String(error);
      return { ok: false, line: `${what} failed: ${reason}`, json: { ...head, state, reason } };
    }
    const inQueue = state === 'waiting' || state === 'prioritized' || state === 'delayed';
    // A run of it that failed, waiting out BullMQ's backoff: the worker took it, so it stays queued.
    const latest =
      inQueue && job.id !== undefined ? await queue.getJob(job.id).catch(() => undefined) : undefined;
    if (latest !== undefined && latest.attemptsMade > 0 && latest.failedReason) {
      const attempts = latest.opts.attempts ?? 1;
      const failed = `attempt ${latest.attemptsMade} of ${attempts} failed: ${latest.failedReason}`;
      const line = `${within}: ${failed}; it stays ${state} in the queue and the worker retries it after a backoff`;
      const json = {
        ...head,
        state,
        reason: 'timeout',
        attemptsMade: latest.attemptsMade,
        failedReason: latest.failedReason,
      };
      return { ok: false, line, json };
    }
    // A job no worker took yet is taken back, so it does not run long after its caller gave up.
    if (
      inQueue &&
      (await job
        .remove()
        .then(() => true)
        .catch(() => false))
    ) {
      const line = `${within}: no worker took it, so it was removed from the queue; is the worker with this --redis-prefix busy or stopped?`;
      return { ok: false, line, json: { ...head, state: 'removed', reason: 'timeout' } };
    }
    const line = `${within} and is still ${state}; is a worker running with this --redis-prefix?`;
    return { ok: false, line, json: { ...head, state, reason: 'timeout' } };
  }
}

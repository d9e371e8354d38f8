/**
 * `transcript-sync worker`: the long-running scheduled sync, until SIGTERM/SIGINT (exit 0), or until
 * --shutdown-timeout passes or its worker lock is lost (exit 1).
 */
import { resolveAll } from '../../config/resolve.js';
import { type Env, type FlagValues, namesOf } from '../../config/settings.js';
import { billingFileSettings, RUN_FLAGS, resolveRunOptions } from '../../config/sync-defaults.js';
import { WORKER_SETTINGS, webhookSecretProblem } from '../../config/worker-settings.js';
import { ConfigError } from '../../errors.js';
import { createLogger, type TextSink } from '../../log.js';
import type { SyncSettings } from '../../worker/job-definition.js';
import type { WorkerOptions } from '../../worker/runtime.js';
import type { WebhookSettings } from '../../worker/webhook-server.js';
import type { Command } from '../command.js';

export const command: Command = {
  name: 'worker',
  usage:
    'worker [--every 5m] [--recent-every 1h] [--recent-window 1d] [--full-every 7d] [--report-every 1d] [--report-dir DIR] [--report-group-by KEYS] [--report-prices FILE] [--report-window 35d] [--publish DIR|s3://BUCKET/PREFIX] [--kind pre-recorded|live|all] [--metrics-port 9464] [--webhook-port PORT] [--webhook-rate 50] [--stale-after 1h] [--shutdown-timeout 10s] [--notify URL] [--db PATH] [--base-url URL]',
  description: [
    'Registers job schedulers (per kind: an incremental sync, a reconcile of the recent window and one',
    'of the whole history; restarting updates them,',
    'never duplicates them) and runs their jobs one at a time, with checkpoints in Redis. Only one',
    'worker may use a DuckDB file: a second one exits 1 naming the holder. The file is open, and its',
    'writer lock held, only while a run lasts: `sync`, `compact` and other writers take turns with the',
    'runs (a writer waiting for the file goes before the next run, even with runs queued back to back),',
    'and a run that finds the file held past --lock-wait goes back to the queue for later.',
    '--every, --recent-every and --full-every take a duration (30s, 5m, 1d) or a 5-field cron',
    'expression in UTC ("*/10 * * * *"). GET /metrics (Prometheus) and /healthz on --metrics-port.',
    "With --webhook-port, POST /webhook/<TSYNC_WEBHOOK_SECRET> on that port takes the service's",
    'webhooks: each event queues an incremental run of its kind, a burst of them one run (see',
    'docs/operating.md for the reverse proxy in front of it).',
    'A billing report job (--report-every) writes the billing figures of every complete day and month',
    'of --report-window as CSV and HTML into --report-dir (files named after the database), writing',
    'missed periods and rewriting one only when its figures changed; nothing before a successful',
    'sync, and files marked STALE when the last successful sync is older than --stale-after.',
    'The API key comes from TSYNC_API_KEY only (never a flag). Every other flag has an environment',
    'variable (in brackets below); `transcript-sync config show` lists each with the value in effect.',
  ].join('\n'),
  // The worker's part of the table is in the order of its --help.
  settings: ['kind', ...namesOf(WORKER_SETTINGS), ...RUN_FLAGS],
  logs: true,
  async run({ flags, env, stderr, exit, jobs }) {
    const { options, shutdownTimeoutMs } = resolveWorkerOptions(flags, env, stderr);
    if (!jobs) {
      throw new ConfigError(
        'worker',
        "this program was started without the worker's jobs; run the worker through bin/transcript-sync",
      );
    }
    const logger = options.logger;
    const { listenForShutdown, stopWithin } = await import('../../worker/shutdown.js');
    const signals = listenForShutdown();
    try {
      // BullMQ, ioredis and prom-client load with the worker's runtime, once a worker starts (a
      // signal meanwhile stops it as soon as it has started): never for --help.
      const { startWorker } = await import('../../worker/runtime.js');
      const running = await startWorker({ ...options, jobs: await jobs() });
      const reason = await Promise.race([
        signals.first.then((s) => `received ${s}`),
        running.fatal.then((r) => `fatal: ${r}`),
      ]);
      logger.info(
        { reason, timeout_ms: shutdownTimeoutMs },
        'shutting down: the run in hand commits and checkpoints first',
      );
      const result = await stopWithin(shutdownTimeoutMs, () => running.stop(), signals.second);
      if (result !== 'stopped') {
        const why =
          result === 'timeout' ? `did not stop within ${shutdownTimeoutMs} ms` : 'stopped by a second signal';
        logger.error(
          `worker ${why}; exiting now (an unfinished job is handed back by BullMQ when its lock expires)`,
        );
        // The stop goes on in the background: end the process now (main.ts binds `exit`).
        exit?.(1);
        return 1;
      }
      logger.info('worker stopped');
      const code = reason.startsWith('fatal') ? 1 : 0;
      // Everything the worker owns is closed; only BullMQ's clients may still be reconnecting to a
      // Redis that is down: no reason to wait out main.ts's grace on stray handles.
      exit?.(code);
      return code;
    } finally {
      signals.dispose();
    }
  },
};

export function resolveWorkerOptions(flags: FlagValues, env: Env, stderr: TextSink) {
  // The worker's own settings first: a bad value there is reported before a missing key or URL.
  const { kind, staleAfter, jobLock, shutdownTimeout, recentWindow, notify, ...asNamed } = resolveAll(
    [
      'kind',
      'every',
      'fullEvery',
      'recentEvery',
      'reportEvery',
      'metricsHost',
      'metricsPort',
      'staleAfter',
      'jobLock',
      'shutdownTimeout',
      'recentWindow',
      'notify',
    ],
    flags,
    env,
  );
  const webhook = resolveWebhook(flags, env);
  if (webhook && webhook.port !== 0 && webhook.port === asNamed.metricsPort) {
    throw new ConfigError(
      '--webhook-port',
      `${webhook.port} is the --metrics-port too; the webhook takes a port of its own, so /metrics and /healthz can stay internal: pick another`,
    );
  }
  const reportFiles = billingFileSettings(flags, env);
  // Checked before the run's settings, whose own message would point at --checkpoints redis.
  const { redisUrl } = resolveAll(['redisUrl'], flags, env);
  if (!redisUrl) {
    throw new ConfigError(
      'REDIS_URL',
      'the worker needs Redis for its queue; set REDIS_URL or --redis-url (e.g. redis://127.0.0.1:6379)',
    );
  }
  const run = resolveRunOptions(flags, env, { checkpoints: 'redis' });
  // A job picks the kind, the mode (and with it the window) and the checkpoints of each run.
  const { kinds: _k, full: _f, checkpoints: _c, since: _s, reconcileWindow: _w, logLevel, ...rest } = run;
  const { reportDir } = resolveAll(['reportDir'], flags, env);
  const settings: SyncSettings = Object.freeze({
    ...rest,
    redisUrl,
    reportDir,
    reportFiles,
    reconcileWindow: recentWindow,
  });
  const options: Omit<WorkerOptions, 'jobs'> = Object.freeze({
    kinds: kind,
    ...asNamed,
    staleAfterMs: staleAfter,
    jobLockMs: jobLock,
    settings,
    logger: createLogger(logLevel, {}, { stream: stderr }),
    ...(notify ? { notifyUrl: notify } : {}),
    ...(webhook ? { webhook } : {}),
  });
  return { options, shutdownTimeoutMs: shutdownTimeout };
}

/** --webhook-port's settings, its secret checked; undefined when the port is not set. */
function resolveWebhook(flags: FlagValues, env: Env): WebhookSettings | undefined {
  const given = resolveAll(['webhookHost', 'webhookRate', 'webhookPort', 'webhookSecret'], flags, env);
  const refused = webhookSecretProblem(given.webhookPort, given.webhookSecret);
  if (refused) throw new ConfigError('TSYNC_WEBHOOK_SECRET', refused);
  if (given.webhookPort === undefined || given.webhookSecret === undefined) return undefined;
  return Object.freeze({
    host: given.webhookHost,
    port: given.webhookPort,
    secret: given.webhookSecret,
    ratePerSecond: given.webhookRate,
  });
}

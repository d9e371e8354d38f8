import { dirname, join } from 'node:path';
/**
 * `transcript-sync worker`: the long-running scheduled sync. Runs until SIGTERM/SIGINT, then stops
 * taking jobs, lets the run in hand commit and checkpoint, closes everything and exits 0, all
 * within --shutdown-timeout (past it: exit 1). Exit 1 too when its database lock is lost.
 */
import { parseSchedule } from '../../config/schedule.js';
import { type Env, type FlagValues, resolveSettings } from '../../config/settings.js';
import { ConfigError } from '../../errors.js';
import { createLogger, type Logger, type TextSink } from '../../log.js';
import type { SyncSettings } from '../../worker/job-definition.js';
import { NOTIFY_OPTION, parseNotifyUrl } from '../../worker/notify.js';
import { startWorker, type WorkerOptions } from '../../worker/runtime.js';
import { listenForShutdown, stopWithin } from '../../worker/shutdown.js';
import { type Command, stringFlag } from '../command.js';
import { REPORT_FILE_OPTIONS, reportFileSettings } from '../report-file-flags.js';
import {
  KIND_OPTION,
  PUBLISH_OPTIONS,
  parseKinds,
  SYNC_SETTINGS,
  syncOptionsFromFlags,
} from '../sync-options.js';
import { windowFlag } from '../window-flag.js';
import { durationFlag, portFlag } from '../worker-flags.js';

const DEFAULTS = {
  every: '5m',
  // README "Reconcile schedule" (issue 13): the last day reconciled hourly finds the deletions and
  // edits most likely to happen within an hour, for about a day's new data a run; the whole
  // history weekly finds the rest. Per day that is 24 days' new data plus a seventh of the history,
  // instead of the whole history (for a year of history, about a fifth).
  fullEvery: '7d',
  recentEvery: '1h',
  recentWindow: '1d',
  reportEvery: '1d',
  metricsHost: '127.0.0.1',
  metricsPort: 9464,
  staleAfter: '1h',
  shutdownTimeout: '10s',
  jobLock: '30s',
} as const;

export const command: Command = {
  name: 'worker',
  summary: 'run scheduled syncs from a BullMQ queue (needs REDIS_URL)',
  usage:
    'worker [--every 5m] [--recent-every 1h] [--recent-window 1d] [--full-every 7d] [--report-every 1d] [--report-dir DIR] [--report-group-by KEYS] [--report-prices FILE] [--report-window 35d] [--publish DIR] [--kind pre-recorded|live|all] [--metrics-port 9464] [--stale-after 1h] [--shutdown-timeout 10s] [--notify URL] [--db PATH] [--base-url URL]',
  description: [
    'Registers job schedulers (per kind: an incremental sync, a reconcile of the recent window and one',
    'of the whole history; restarting updates them,',
    'never duplicates them) and runs their jobs one at a time, with checkpoints in Redis. Only one',
    'worker may use a DuckDB file: a second one exits 1 naming the holder. The file is open only',
    'while a run lasts. --every, --recent-every and --full-every take a duration (30s, 5m, 1d) or a 5-field cron',
    'expression in UTC ("*/10 * * * *"). GET /metrics (Prometheus) and /healthz on --metrics-port.',
    'A billing report job (--report-every) writes the billing figures of every complete day and month',
    'of --report-window as CSV and HTML into --report-dir (files named after the database), writing',
    'missed periods and rewriting one only when its figures changed; nothing before a successful',
    'sync, and files marked STALE when the last successful sync is older than --stale-after.',
    'The API key comes from TSYNC_API_KEY only (never a flag).',
  ].join('\n'),
  options: {
    kind: KIND_OPTION,
    every: {
      type: 'string',
      value: 'WHEN',
      help: `incremental sync schedule per kind (default ${DEFAULTS.every})`,
    },
    'recent-every': {
      type: 'string',
      value: 'WHEN',
      help: `reconcile of the recent window per kind, i.e. sync --full --window (default ${DEFAULTS.recentEvery})`,
    },
    'recent-window': {
      type: 'string',
      value: 'DURATION',
      help: `how far back the recent reconcile looks, with its unit (default ${DEFAULTS.recentWindow})`,
    },
    'full-every': {
      type: 'string',
      value: 'WHEN',
      help: `reconcile of the whole history per kind (default ${DEFAULTS.fullEvery})`,
    },
    'report-every': {
      type: 'string',
      value: 'WHEN',
      help: `billing report schedule, a duration or cron (default ${DEFAULTS.reportEvery})`,
    },
    'report-dir': {
      type: 'string',
      value: 'DIR',
      help: 'where billing reports are written (default: a reports/ folder beside the DuckDB file)',
    },
    ...REPORT_FILE_OPTIONS,
    'metrics-port': {
      type: 'string',
      value: 'PORT',
      help: `port of /metrics and /healthz; 0 picks a free one (default ${DEFAULTS.metricsPort})`,
    },
    'metrics-host': {
      type: 'string',
      value: 'HOST',
      help: `address to bind; 0.0.0.0 in a container (default ${DEFAULTS.metricsHost})`,
    },
    'stale-after': {
      type: 'string',
      value: 'DURATION',
      help: `/healthz fails when a kind has not synced for this long (default ${DEFAULTS.staleAfter})`,
    },
    'shutdown-timeout': {
      type: 'string',
      value: 'DURATION',
      help: `most time a clean stop may take (default ${DEFAULTS.shutdownTimeout})`,
    },
    'job-lock': {
      type: 'string',
      value: 'DURATION',
      help: `BullMQ job lock; a dead worker's job is handed back after about this long (default ${DEFAULTS.jobLock})`,
    },
    notify: NOTIFY_OPTION,
    ...PUBLISH_OPTIONS,
  },
  logs: true,
  settings: SYNC_SETTINGS,
  async run({ flags, env, stderr, exit, jobs }) {
    const { options, shutdownTimeoutMs } = resolveWorkerOptions(flags, env, stderr);
    if (!jobs) {
      throw new ConfigError(
        'worker',
        "this program was started without the worker's jobs; run the worker through bin/transcript-sync",
      );
    }
    const logger = options.logger;
    const signals = listenForShutdown();
    try {
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
      // Everything the worker owns is closed (runs committed, database and lock released). Only
      // BullMQ's clients may still be reconnecting to a Redis that is down: no reason to keep the
      // process alive for main.ts's 2 s grace on stray handles.
      exit?.(code);
      return code;
    } finally {
      signals.dispose();
    }
  },
};

export function resolveWorkerOptions(
  flags: FlagValues,
  env: Env,
  stderr: TextSink,
): {
  options: Omit<WorkerOptions, 'jobs'>;
  shutdownTimeoutMs: number;
} {
  // The worker's own flags first: a typo there is reported before a missing key or URL.
  const own = {
    kinds: parseKinds(flags),
    every: parseSchedule(stringFlag(flags, 'every') ?? DEFAULTS.every, '--every'),
    fullEvery: parseSchedule(stringFlag(flags, 'full-every') ?? DEFAULTS.fullEvery, '--full-every'),
    recentEvery: parseSchedule(stringFlag(flags, 'recent-every') ?? DEFAULTS.recentEvery, '--recent-every'),
    reportEvery: parseSchedule(stringFlag(flags, 'report-every') ?? DEFAULTS.reportEvery, '--report-every'),
    metricsHost: stringFlag(flags, 'metrics-host') ?? DEFAULTS.metricsHost,
    metricsPort: portFlag(flags, 'metrics-port', DEFAULTS.metricsPort),
    staleAfterMs: durationFlag(flags, 'stale-after', DEFAULTS.staleAfter),
    jobLockMs: durationFlag(flags, 'job-lock', DEFAULTS.jobLock),
  };
  const reportFiles = reportFileSettings(flags, own);
  const notifyUrl = parseNotifyUrl(stringFlag(flags, 'notify'));
  const shutdownTimeoutMs = durationFlag(flags, 'shutdown-timeout', DEFAULTS.shutdownTimeout);
  const reconcileWindow = windowFlag(flags, 'recent-window', DEFAULTS.recentWindow);
  // Checked before the sync settings, whose own message would point at --checkpoints redis.
  if (!resolveSettings([], ['redisUrl'], flags, env).redisUrl) {
    throw new ConfigError(
      'REDIS_URL',
      'the worker needs Redis for its queue; set REDIS_URL or --redis-url (e.g. redis://127.0.0.1:6379)',
    );
  }
  const base = syncOptionsFromFlags(flags, { full: false, checkpoints: 'redis' }, env);
  const { kinds: _k, full: _f, checkpoints: _c, since: _s, logLevel, redisUrl, ...rest } = base;
  if (!redisUrl) {
    // syncOptionsFromFlags already refuses this for checkpoints 'redis'; this narrows the type.
    throw new ConfigError('REDIS_URL', 'is required by the worker; set REDIS_URL or --redis-url');
  }
  const reportDir = stringFlag(flags, 'report-dir') ?? join(dirname(rest.db), 'reports');
  const settings: SyncSettings = Object.freeze({
    ...rest,
    redisUrl,
    reportDir,
    reportFiles,
    reconcileWindow: reconcileWindow ?? null,
  });
  const logger: Logger = createLogger(logLevel, {}, { stream: stderr });
  return {
    options: Object.freeze({ ...own, settings, logger, ...(notifyUrl ? { notifyUrl } : {}) }),
    shutdownTimeoutMs,
  };
}

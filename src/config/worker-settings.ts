/**
 * The settings of `worker` beyond a run's, in the order of its --help: schedules, report files,
 * metrics, webhooks, stopping. Each has an environment variable, for a container.
 */
import { parseGroupBy } from '../analytics/group-by.js';
import { loadPrices } from '../analytics/prices.js';
import { formatDurationSetting } from '../util/duration.js';
import type { Setting } from './setting.js';
import {
  duration,
  numberAbove,
  off,
  parsedBy,
  pathText,
  port,
  schedule,
  text,
  timerDuration,
} from './values.js';

/** Fewest characters of TSYNC_WEBHOOK_SECRET: 32, as many as a UUID's hex digits. */
export const WEBHOOK_SECRET_MIN = 32;

/** A secret that fits in a URL path as it is: letters, digits and `-_.~`. */
const PATH_SAFE = /^[A-Za-z0-9._~-]+$/;

/**
 * Why the worker refuses TSYNC_WEBHOOK_SECRET with `port` set (`config show` names it too);
 * undefined when it takes it, or when no port is set. The message says what is wrong with the
 * secret, never the secret itself.
 */
export function webhookSecretProblem(
  port: number | undefined,
  secret: string | undefined,
): string | undefined {
  if (port === undefined) return undefined;
  const wrong =
    secret === undefined || secret === ''
      ? 'it is unset'
      : secret.length < WEBHOOK_SECRET_MIN
        ? `it has ${secret.length}`
        : PATH_SAFE.test(secret)
          ? undefined
          : 'it holds other characters';
  if (wrong === undefined) return undefined;
  return `--webhook-port needs at least ${WEBHOOK_SECRET_MIN} letters, digits or -_.~ here (${wrong}); make one with: openssl rand -hex 32`;
}

/**
 * Shortest job lock, ms. BullMQ renews the lock at half its life while the job runs; the other half
 * must cover the renewal's round trip to Redis and the event loop's delays, or the lock expires
 * under a live run and BullMQ counts the job stalled.
 */
const JOB_LOCK_MIN_MS = 2_000;
const JOB_LOCK_MIN = formatDurationSetting(JOB_LOCK_MIN_MS);

export const WORKER_SETTINGS = {
  every: {
    env: 'TSYNC_EVERY',
    flag: 'every',
    value: 'WHEN',
    schema: schedule,
    default: '5m',
    help: 'incremental sync schedule per kind',
  },
  recentEvery: {
    env: 'TSYNC_RECENT_EVERY',
    flag: 'recent-every',
    value: 'WHEN',
    schema: schedule,
    default: '1h',
    help: 'reconcile of the recent window per kind, i.e. sync --full --window',
  },
  recentWindow: {
    env: 'TSYNC_RECENT_WINDOW',
    flag: 'recent-window',
    value: 'DURATION',
    schema: duration,
    default: '1d',
    help: 'how far back the recent reconcile looks, with its unit',
  },
  fullEvery: {
    env: 'TSYNC_FULL_EVERY',
    flag: 'full-every',
    value: 'WHEN',
    schema: schedule,
    // Why weekly: docs/decisions/0010-reconcile-recent-often-history-weekly-with-a-guard.md.
    default: '7d',
    help: 'reconcile of the whole history per kind',
  },
  reportEvery: {
    env: 'TSYNC_REPORT_EVERY',
    flag: 'report-every',
    value: 'WHEN',
    schema: schedule,
    default: '1d',
    help: 'billing report schedule, a duration or cron',
  },
  reportDir: {
    env: 'TSYNC_REPORT_DIR',
    flag: 'report-dir',
    value: 'DIR',
    schema: pathText,
    help: 'where billing reports are written (default: a reports/ folder beside the DuckDB file)',
  },
  reportGroupBy: {
    env: 'TSYNC_REPORT_GROUP_BY',
    flag: 'report-group-by',
    value: 'KEYS',
    schema: parsedBy((keys) => parseGroupBy(keys, '')),
    default: 'kind',
    help: 'groups of the billing files: kind, model, metadata.<key>, up to 3 comma-separated',
  },
  reportPrices: {
    env: 'TSYNC_REPORT_PRICES',
    flag: 'report-prices',
    value: 'FILE',
    schema: parsedBy((path) => loadPrices(path, '')),
    help: 'JSON price list for the billing files (adds cost; see report --help); read once at start',
  },
  reportWindow: {
    env: 'TSYNC_REPORT_WINDOW',
    flag: 'report-window',
    value: 'DURATION',
    schema: duration,
    default: '35d',
    help: 'each report run (re)writes every complete day and month this far back',
  },
  reportBom: {
    env: 'TSYNC_REPORT_BOM',
    flag: 'report-bom',
    ...off,
    help: 'billing CSV files start with a UTF-8 byte order mark (for Excel)',
  },
  metricsPort: {
    env: 'TSYNC_METRICS_PORT',
    flag: 'metrics-port',
    value: 'PORT',
    schema: port,
    default: '9464',
    help: 'port of /metrics and /healthz; 0 picks a free one',
  },
  metricsHost: {
    env: 'TSYNC_METRICS_HOST',
    flag: 'metrics-host',
    value: 'HOST',
    schema: text,
    default: '127.0.0.1',
    help: 'address to bind; 0.0.0.0 in a container',
  },
  webhookPort: {
    env: 'TSYNC_WEBHOOK_PORT',
    flag: 'webhook-port',
    value: 'PORT',
    schema: port,
    help: "port of POST /webhook/<secret>, where the service's webhooks start an incremental run (off when unset; needs TSYNC_WEBHOOK_SECRET)",
  },
  webhookHost: {
    env: 'TSYNC_WEBHOOK_HOST',
    flag: 'webhook-host',
    value: 'HOST',
    schema: text,
    default: '127.0.0.1',
    help: 'address the webhook port binds; a reverse proxy with TLS in front of it',
  },
  webhookRate: {
    env: 'TSYNC_WEBHOOK_RATE',
    flag: 'webhook-rate',
    value: 'N',
    schema: numberAbove(0),
    default: '50',
    help: 'webhook requests per second one source address may send (a burst of as many); more get 429',
  },
  webhookSecret: {
    env: 'TSYNC_WEBHOOK_SECRET',
    schema: text,
    secret: true,
    help: `the last part of the webhook's path, at least ${WEBHOOK_SECRET_MIN} characters (environment only, never a flag)`,
  },
  staleAfter: {
    env: 'TSYNC_STALE_AFTER',
    flag: 'stale-after',
    value: 'DURATION',
    schema: duration,
    default: '1h',
    help: '/healthz fails, and billing files are marked STALE, when a kind has not synced for this long',
  },
  shutdownTimeout: {
    env: 'TSYNC_SHUTDOWN_TIMEOUT',
    flag: 'shutdown-timeout',
    value: 'DURATION',
    schema: timerDuration,
    default: '10s',
    help: 'most time a clean stop may take (at most 24d)',
  },
  jobLock: {
    env: 'TSYNC_JOB_LOCK',
    flag: 'job-lock',
    value: 'DURATION',
    schema: timerDuration.refine((ms) => ms >= JOB_LOCK_MIN_MS, {
      message: `must be a duration of ${JOB_LOCK_MIN} or more`,
    }),
    default: '30s',
    help: `BullMQ job lock, at least ${JOB_LOCK_MIN} and at most 24d (renewed at half its life); a dead worker's job is handed back after about this long`,
  },
} as const satisfies Record<string, Setting>;

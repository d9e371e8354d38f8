/**
 * The settings of a sync run, shared by `sync`, `worker` and the commands that open the file; each
 * has an environment variable. A default the layer below also falls back on is its constant.
 */
import { z } from 'zod';
import { DEFAULT_RATE_LIMIT } from '../extract/index.js';
import { DEFAULT_MEMORY } from '../memory/budget.js';
import { DEFAULT_LOCK_WAIT_MS } from '../store/index.js';
import { formatDurationSetting } from '../util/duration.js';
import type { Setting } from './setting.js';
import {
  bytesBetween,
  duration,
  durationBetween,
  durationOf,
  httpUrl,
  intBetween,
  kinds,
  memoryBudget,
  metadataKeys,
  numberAbove,
  numberBetween,
  off,
  oneOf,
  pathText,
  postUrl,
  publishLocation,
  redisUrl,
  text,
} from './values.js';

const DAY_MS = 86_400_000;

export const RUN_SETTINGS = {
  apiKey: {
    env: 'TSYNC_API_KEY',
    schema: text,
    secret: true,
    help: 'API key sent as x-service-key (environment only, never a flag)',
  },
  baseUrl: {
    env: 'TSYNC_BASE_URL',
    flag: 'base-url',
    value: 'URL',
    schema: httpUrl,
    help: 'base URL of the listing service, e.g. https://api.example.com',
  },
  db: {
    env: 'TSYNC_DB',
    flag: 'db',
    value: 'PATH',
    schema: pathText,
    default: './data/transcripts.duckdb',
    help: 'DuckDB file',
  },
  redisUrl: {
    env: 'REDIS_URL',
    flag: 'redis-url',
    value: 'URL',
    schema: redisUrl,
    help: 'Redis URL (worker, enqueue, redis checkpoints)',
  },
  redisPrefix: {
    env: 'TSYNC_REDIS_PREFIX',
    flag: 'redis-prefix',
    value: 'PREFIX',
    schema: z.string().regex(/^[\w.:-]+$/, 'may hold letters, digits and _.:- only'),
    default: 'tsync',
    help: 'prefix of every Redis key and queue',
  },
  logLevel: {
    env: 'TSYNC_LOG_LEVEL',
    flag: 'log-level',
    value: 'LEVEL',
    schema: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    help: 'log level',
  },
  kind: {
    env: 'TSYNC_KIND',
    flag: 'kind',
    value: 'KIND',
    schema: kinds,
    default: 'all',
    help: 'the kinds to sync: pre-recorded, live or all',
  },
  checkpoints: {
    env: 'TSYNC_CHECKPOINTS',
    flag: 'checkpoints',
    value: 'STORE',
    schema: oneOf(['duckdb', 'redis']),
    default: 'duckdb',
    help: 'where checkpoints live: duckdb (in the same file) or redis (needs REDIS_URL)',
  },
  rateLimit: {
    env: 'TSYNC_RATE_LIMIT',
    flag: 'rate-limit',
    value: 'N',
    schema: numberAbove(0),
    default: String(DEFAULT_RATE_LIMIT),
    help: 'client-side limit, requests per second',
  },
  pageSize: {
    env: 'TSYNC_PAGE_SIZE',
    flag: 'page-size',
    value: 'N',
    schema: intBetween(1, 1000),
    default: '100',
    help: 'most items asked for per page (fewer when records are big; the service may serve fewer)',
  },
  pageBytes: {
    env: 'TSYNC_PAGE_BYTES',
    flag: 'page-bytes',
    value: 'SIZE',
    schema: bytesBetween(64 * 2 ** 10, 256 * 2 ** 20, '64KiB to 256MiB'),
    help: 'most JSON bytes of a page (default: from --memory, 1.3 MiB at 512MB): pages are sized to it from the first request, a longer answer is asked again smaller',
  },
  maxRecordBytes: {
    env: 'TSYNC_MAX_RECORD_BYTES',
    flag: 'max-record-bytes',
    value: 'SIZE',
    schema: bytesBetween(2 ** 20, 200 * 2 ** 20, '1MiB to 200MiB'),
    // Far above an hour-long transcript in five languages.
    default: '64MiB',
    help: 'most JSON bytes of one record; a bigger one fails its kind (the other still syncs)',
  },
  sliceJobs: {
    env: 'TSYNC_SLICE_JOBS',
    flag: 'slice-jobs',
    value: 'N',
    schema: intBetween(1, 1_000_000),
    help: 'jobs per backfill slice (default 4 x --page-size); keep it under a service offset cap',
  },
  maxDeleteShare: {
    env: 'TSYNC_MAX_DELETE_SHARE',
    flag: 'max-delete-share',
    value: 'SHARE',
    schema: numberBetween(0, 1),
    default: '0.1',
    help: "share (0..1) of a kind's stored jobs one --full run may mark deleted (always at least 10 jobs); 1 lets any share through",
  },
  serviceRetention: {
    env: 'TSYNC_SERVICE_RETENTION',
    flag: 'service-retention',
    value: 'DURATION',
    schema: durationBetween(2 * DAY_MS, 366 * DAY_MS, '2d to 366d'),
    // The service keeps a job 12 months by default and at most; an account can set less.
    default: '365d',
    help: "the account's data retention (set it to the account's setting): a --full run walks no further back than it, and keeps the older jobs the service no longer lists as expired, never deleted",
  },
  onDelete: {
    env: 'TSYNC_ON_DELETE',
    flag: 'on-delete',
    value: 'ACTION',
    schema: oneOf(['mark', 'erase']),
    default: 'mark',
    help: 'what a --full run does with a job the service no longer lists: mark it deleted, or mark it and erase its content as `erase` does',
  },
  eraseKeepMetadata: {
    env: 'TSYNC_ERASE_KEEP_METADATA',
    flag: 'erase-keep-metadata',
    value: 'KEYS',
    schema: metadataKeys,
    help: 'custom_metadata keys an erased job keeps, comma-separated (e.g. customer, for `report billing --group-by metadata.customer`)',
  },
  concurrency: {
    env: 'TSYNC_CONCURRENCY',
    flag: 'concurrency',
    value: 'N',
    schema: intBetween(1, 16),
    default: '2',
    help: 'time slices fetched in parallel during a backfill (one writer still loads them)',
  },
  memory: {
    env: 'TSYNC_MEMORY',
    flag: 'memory',
    value: 'SIZE',
    schema: memoryBudget,
    default: `${DEFAULT_MEMORY / 1e6}MB`,
    help: "memory budget of the process (MB/GB decimal, MiB/GiB binary): a sync's page size, pages in flight and DuckDB memory derive from it, and a reading command's DuckDB memory limit (beyond it, DuckDB spills to <db>.tmp-<pid>)",
  },
  lookback: {
    env: 'TSYNC_LOOKBACK',
    flag: 'lookback',
    value: 'DURATION',
    // 0s is meaningful: look again from the watermark itself.
    schema: durationOf({ allowZero: true }),
    default: '15m',
    help: 'how far before the watermark an incremental run looks again',
  },
  pendingMaxAge: {
    env: 'TSYNC_PENDING_MAX_AGE',
    flag: 'pending-max-age',
    value: 'DURATION',
    schema: duration,
    default: '7d',
    help: 'queued/processing jobs younger than this are re-checked on every run',
  },
  lockWait: {
    env: 'TSYNC_LOCK_WAIT',
    flag: 'lock-wait',
    value: 'DURATION',
    // 0s is meaningful: do not wait for a file another process holds.
    schema: durationOf({ allowZero: true }),
    default: formatDurationSetting(DEFAULT_LOCK_WAIT_MS),
    help: 'how long to wait for a database file held by a running sync',
  },
  notify: {
    env: 'TSYNC_NOTIFY',
    flag: 'notify',
    value: 'URL',
    schema: postUrl,
    help: 'POST a JSON message to URL when a kind starts failing and when it recovers',
  },
  publish: {
    env: 'TSYNC_PUBLISH',
    flag: 'publish',
    value: 'DIR|s3://BUCKET/PREFIX',
    schema: publishLocation,
    help: 'after each run that synced a kind, refresh a Parquet dataset in a folder or an S3-compatible bucket (changed partitions only; a kind that failed is named stale in its manifest)',
  },
  publishKeep: {
    env: 'TSYNC_PUBLISH_KEEP',
    flag: 'publish-keep',
    value: 'N',
    schema: intBetween(1, 100),
    default: '2',
    help: 'with --publish s3://: keep the last N manifests and every file they name, so a reader that started on an older one finishes',
  },
  publishEndpoint: {
    env: 'TSYNC_PUBLISH_ENDPOINT',
    flag: 'publish-endpoint',
    value: 'URL',
    schema: httpUrl,
    help: "with --publish s3://: an S3-compatible endpoint (MinIO, R2, Ceph), addressed path-style; default the AWS SDK's AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, else AWS S3 by region",
  },
  publishRaw: {
    env: 'TSYNC_PUBLISH_RAW',
    flag: 'publish-raw',
    ...off,
    help: "with --publish: add each job's raw (the record as received, job_records) to the published jobs",
  },
} as const satisfies Record<string, Setting>;

/**
 * Flags and environment → SyncOptions, shared by `sync`, `worker` and `demo`. Validated once here
 * (zod through src/config.ts); the engine trusts what it gets.
 */
import { resolve } from 'node:path';
import { type Env, type FlagValues, resolveSettings, type SettingName } from '../config/settings.js';
import { SYNC_DEFAULTED } from '../config/sync-defaults.js';
import { ConfigError } from '../errors.js';
import { JOB_KINDS, type JobKind } from '../kinds.js';
import type { Logger } from '../log.js';
import type { PipelineOptions, PublishTarget } from '../pipeline.js';
import type { OptionSpec } from './command.js';
import { stringFlag } from './command.js';

/** Settings a sync needs, each with a default or required (REDIS_URL is optional). */
const SYNC_REQUIRED = [
  'baseUrl',
  'db',
  ...SYNC_DEFAULTED,
  'logLevel',
] as const satisfies readonly SettingName[];

/** Settings every sync-running command takes as flags (the key is environment-only). */
export const SYNC_SETTINGS = [
  ...SYNC_REQUIRED,
  'pageBytes',
  'sliceJobs',
  'redisUrl',
] as const satisfies readonly SettingName[];

export const KIND_OPTION: OptionSpec = {
  type: 'string',
  value: 'KIND',
  help: 'pre-recorded, live or all (default all)',
};

/** Flags of the commands that run syncs and can keep a Parquet dataset fresh (sync, worker). */
export const PUBLISH_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  publish: {
    type: 'string',
    value: 'DIR',
    help: 'after each run that synced a kind, refresh a Parquet dataset in DIR (changed partitions only; a kind that failed is named stale in its manifest)',
  },
  'publish-raw': { type: 'boolean', help: 'with --publish: keep jobs.raw (the record as received)' },
};

export function parsePublish(flags: FlagValues): PublishTarget | undefined {
  const dir = stringFlag(flags, 'publish');
  const raw = flags['publish-raw'] === true;
  if (dir === undefined) {
    if (raw) throw new ConfigError('--publish-raw', 'applies only with --publish DIR');
    return undefined;
  }
  if (dir.trim() === '') throw new ConfigError('--publish', 'needs a folder');
  return { dir: resolve(dir), raw };
}

export function parseKinds(flags: FlagValues): JobKind[] {
  const text = stringFlag(flags, 'kind') ?? 'all';
  if (text === 'all') return [...JOB_KINDS];
  if ((JOB_KINDS as readonly string[]).includes(text)) return [text as JobKind];
  throw new ConfigError('--kind', `must be pre-recorded, live or all (got "${text}")`);
}

/** `--since`: an ISO 8601 date or instant, not in the future (a window that starts later than now holds nothing). */
export function parseSince(flags: FlagValues, now = new Date()): Date | undefined {
  const text = stringFlag(flags, 'since');
  if (text === undefined) return undefined;
  const date = /^\d{4}-\d{2}-\d{2}/.test(text) ? new Date(text) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime()))
    throw new ConfigError('--since', `is not an ISO 8601 date or instant (got "${text}")`);
  if (date > now) {
    throw new ConfigError('--since', `is in the future (got "${text}"); give a past date, e.g. 2026-01-01`);
  }
  return date;
}

export interface SyncFlags {
  readonly full: boolean;
  readonly checkpoints: 'duckdb' | 'redis';
  readonly logger?: Logger;
  readonly signal?: AbortSignal;
}

export function syncOptionsFromFlags(
  flags: FlagValues,
  extra: SyncFlags,
  env: Env,
): PipelineOptions & { logLevel: string } {
  const settings = resolveSettings(
    ['apiKey', ...SYNC_REQUIRED],
    ['redisUrl', 'sliceJobs', 'pageBytes'],
    flags,
    env,
  );
  if (extra.checkpoints === 'redis' && !settings.redisUrl) {
    throw new ConfigError('REDIS_URL', 'is required with --checkpoints redis; set REDIS_URL or --redis-url');
  }
  const since = parseSince(flags);
  const publish = parsePublish(flags);
  return {
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    db: settings.db,
    kinds: parseKinds(flags),
    full: extra.full,
    ...(since ? { since } : {}),
    checkpoints: extra.checkpoints,
    ...(settings.redisUrl ? { redisUrl: settings.redisUrl } : {}),
    redisPrefix: settings.redisPrefix,
    pageSize: settings.pageSize,
    // Unset: the memory budget's page bytes (src/memory/budget.ts).
    ...(settings.pageBytes ? { pageBytes: settings.pageBytes } : {}),
    maxRecordBytes: settings.maxRecordBytes,
    maxDeleteShare: settings.maxDeleteShare,
    ...(settings.sliceJobs ? { sliceJobs: settings.sliceJobs } : {}),
    rateLimit: settings.rateLimit,
    concurrency: settings.concurrency,
    memory: settings.memory,
    lookback: settings.lookback,
    pendingMaxAge: settings.pendingMaxAge,
    lockWait: settings.lockWait,
    metadataEncoding: settings.metadataEncoding,
    logLevel: settings.logLevel,
    ...(publish ? { publish } : {}),
    ...(extra.logger ? { logger: extra.logger } : {}),
    ...(extra.signal ? { signal: extra.signal } : {}),
  };
}

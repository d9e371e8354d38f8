/**
 * A run's settings as the sync takes them, and the worker's billing report files, resolved from the
 * settings table so that no use site adds a default of its own.
 */
import type { BillingFileSettings } from '../analytics/billing-files.js';
import { isBucketUrl } from '../analytics/publish/bucket-url.js';
import type { PublishTarget } from '../analytics/publish/publish.js';
import { ConfigError } from '../errors.js';
import { DEFAULT_ANOMALY_PAUSE_MS } from '../extract/index.js';
import { onlyKind } from '../kinds.js';
import type { RunHooks, SyncOptions } from '../sync/types.js';
import { assertOutputFolder } from '../util/path-checks.js';
import { given, resolveAll, resolveSettings } from './resolve.js';
import type { Env, FlagValues, SettingName } from './settings.js';
import { httpUrl } from './values.js';

/** The configuration a run takes as flags (`sync`, `worker`, after their own and `--kind`). */
export const RUN_FLAGS = [
  'baseUrl',
  'db',
  'redisUrl',
  'redisPrefix',
  'pageSize',
  'pageBytes',
  'maxRecordBytes',
  'sliceJobs',
  'maxDeleteShare',
  'serviceRetention',
  'onDelete',
  'eraseKeepMetadata',
  'rateLimit',
  'concurrency',
  'memory',
  'lookback',
  'pendingMaxAge',
  'lockWait',
  'logLevel',
  'notify',
  'publish',
  'publishRaw',
  'publishKeep',
  'publishEndpoint',
] as const satisfies readonly SettingName[];

/** Every setting of a run: its flags, the key, and what to sync from where. */
const RUN_SETTINGS = [
  'apiKey',
  'kind',
  'full',
  'checkpoints',
  'reconcileWindow',
  'since',
  ...RUN_FLAGS,
] as const;

/** A run's settings but the service's address and key and the file, which have no default. */
export type SyncDefaults = Omit<SyncOptions, 'baseUrl' | 'apiKey' | 'db' | keyof RunHooks> & {
  /** What the pipeline publishes after the run (src/pipeline.ts); null: nothing. */
  readonly publish: PublishTarget | null;
};

/** A run with every default; pages and slices left null follow the caller's memory, concurrency and page size. */
export function syncDefaults(): SyncDefaults {
  return Object.freeze({ ...runPlan(resolveAll(RUN_SETTINGS, {}, {})), pageBytes: null, sliceJobs: null });
}

/** Every setting of a run, and the checks that involve two; the worker's checkpoints are in Redis. */
export function resolveRunOptions(
  flags: FlagValues,
  env: Env,
  options: { readonly checkpoints?: 'redis' } = {},
) {
  const settings = resolveAll(RUN_SETTINGS, flags, env);
  const { apiKey, baseUrl } = resolveSettings(['apiKey', 'baseUrl'], [], flags, env);
  const checkpoints = options.checkpoints ?? settings.checkpoints;
  if (checkpoints === 'redis' && !settings.redisUrl) {
    throw new ConfigError('REDIS_URL', 'is required with --checkpoints redis; set REDIS_URL or --redis-url');
  }
  if (settings.publishRaw && settings.publish === undefined) {
    throw new ConfigError(given('publishRaw', flags, env).where, 'applies only with --publish DIR');
  }
  const toBucket = settings.publish !== undefined && isBucketUrl(settings.publish);
  // Before any lock or fetch: a folder that cannot hold the dataset fails the run at once.
  if (settings.publish !== undefined && !toBucket)
    assertOutputFolder(settings.publish, given('publish', flags, env).where);
  if (settings.reconcileWindow !== undefined && !settings.full) {
    throw new ConfigError('--window', 'only applies to a reconcile; add --full');
  }
  const { db, logLevel } = settings;
  const publishEndpoint = settings.publishEndpoint ?? (toBucket ? endpointOfSdk(env) : undefined);
  const plan = runPlan({ ...settings, ...(publishEndpoint === undefined ? {} : { publishEndpoint }) });
  return Object.freeze({ apiKey, baseUrl, db, logLevel, ...plan, checkpoints });
}

/** The AWS SDK's own endpoint variables, read too when --publish-endpoint is unset: addressed path-style. */
function endpointOfSdk(env: Env): string | undefined {
  const name = ['AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL'].find((n) => (env[n] ?? '') !== '');
  if (name === undefined) return undefined;
  const parsed = httpUrl.safeParse(env[name]);
  if (!parsed.success) throw new ConfigError(name, 'must be an http:// or https:// URL');
  return parsed.data;
}

function runPlan(s: ReturnType<typeof resolveAll<(typeof RUN_SETTINGS)[number]>>): SyncDefaults {
  return {
    kinds: s.kind,
    full: s.full,
    reconcileWindow: s.reconcileWindow ?? null,
    since: s.since ?? null,
    pageSize: s.pageSize,
    pageBytes: s.pageBytes,
    maxRecordBytes: s.maxRecordBytes,
    anomalyPauseMs: DEFAULT_ANOMALY_PAUSE_MS,
    maxDeleteShare: s.maxDeleteShare,
    serviceRetention: s.serviceRetention,
    onDelete: s.onDelete,
    eraseKeepMetadata: s.eraseKeepMetadata ?? [],
    concurrency: s.concurrency,
    sliceJobs: s.sliceJobs,
    memory: s.memory,
    lookback: s.lookback,
    pendingMaxAge: s.pendingMaxAge,
    rateLimit: s.rateLimit,
    lockWait: s.lockWait,
    checkpoints: s.checkpoints,
    redisUrl: s.redisUrl ?? null,
    redisPrefix: s.redisPrefix,
    publish:
      s.publish === undefined
        ? null
        : {
            dir: s.publish,
            raw: s.publishRaw,
            keep: s.publishKeep,
            ...(s.publishEndpoint === undefined ? {} : { endpoint: s.publishEndpoint }),
          },
  };
}

/**
 * The `--report-*` settings, staleness from `--stale-after`, and the kind the worker syncs when it
 * syncs one (the other never has a successful sync to vouch for it).
 */
export function billingFileSettings(flags: FlagValues = {}, env: Env = {}): BillingFileSettings {
  const settings = resolveAll(
    ['kind', 'reportGroupBy', 'reportWindow', 'staleAfter', 'reportBom', 'reportPrices'],
    flags,
    env,
  );
  return Object.freeze({
    groupBy: settings.reportGroupBy,
    prices: settings.reportPrices,
    windowMs: settings.reportWindow,
    staleAfterMs: settings.staleAfter,
    bom: settings.reportBom,
    kind: onlyKind(settings.kind),
  });
}

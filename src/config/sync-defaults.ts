/**
 * A run's settings as they are when no flag and no environment variable sets them: parsed from the
 * defaults in src/config.ts, the same text the CLI and the worker fall back to, so the demo, the
 * tests and the benchmarks restate none of them (they override what they mean to, e.g. a test's
 * small pages). The service (base URL, key) and the file have no default and are left to the caller.
 */

import type { PublishTarget } from '../analytics/publish/publish.js';
import { DEFAULT_ANOMALY_PAUSE_MS } from '../extract/walk/page-anomalies.js';
import { JOB_KINDS } from '../kinds.js';
import type { RunHooks, SyncOptions } from '../sync/types.js';
import { resolveSettings } from './settings.js';

/** Settings with a default in src/config.ts that a run takes (the CLI's sync settings add the rest). */
export const SYNC_DEFAULTED = [
  'redisPrefix',
  'pageSize',
  'maxRecordBytes',
  'maxDeleteShare',
  'rateLimit',
  'concurrency',
  'memory',
  'lookback',
  'pendingMaxAge',
  'lockWait',
  'metadataEncoding',
] as const;

export type SyncDefaults = Omit<SyncOptions, 'baseUrl' | 'apiKey' | 'db' | keyof RunHooks> & {
  /** What the pipeline publishes after the run (src/pipeline.ts); null: nothing. */
  readonly publish: PublishTarget | null;
};

/**
 * Every kind, incremental, DuckDB checkpoints, and each setting's default; no window, no Redis, no
 * dataset. Pages and slices are left null: derived at run time from the caller's own memory,
 * concurrency and page size.
 */
export function syncDefaults(): SyncDefaults {
  const settings = resolveSettings(SYNC_DEFAULTED, [], {}, {});
  return Object.freeze({
    ...settings,
    kinds: JOB_KINDS,
    full: false,
    reconcileWindow: null,
    since: null,
    pageBytes: null,
    sliceJobs: null,
    anomalyPauseMs: DEFAULT_ANOMALY_PAUSE_MS,
    checkpoints: 'duckdb' as const,
    redisUrl: null,
    publish: null,
  });
}

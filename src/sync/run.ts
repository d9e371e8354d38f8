/**
 * One sync run over the selected kinds: opens the DuckDB file (the only writer), the client and the
 * checkpoint stores, syncs each kind in turn, and closes everything it opened. A failure of one
 * kind's listing is recorded and the next kind still runs (a huge record or a refused deletion in
 * one list must not starve the other); a failure every kind would meet (a refused key, a bad
 * setting, an untrusted certificate) stops the run and is thrown. A non-retryable failure of one
 * kind is thrown once every kind ran, carrying the run's summary (`syncSummary`), so the CLI can
 * report each kind and the worker does not retry it.
 */
import { randomUUID } from 'node:crypto';
import { type PublishResult, publishDataset } from '../analytics/publish.js';
import { type ReadServer, serveReads } from '../analytics/read-server.js';
import { ListingClient } from '../api/index.js';
import {
  ConfigError,
  DatabaseError,
  DeletionGuardError,
  isRetryable,
  ResponseTooLargeError,
  toError,
} from '../errors.js';
import { type Logger, silentLogger } from '../log.js';
import { Database } from '../store/database.js';
import { JobLoader } from '../store/loader.js';
import { resolveCheckpoint } from './checkpoints.js';
import { DuckDbCheckpointStore } from './checkpoints-duckdb.js';
import { RedisCheckpointStore } from './checkpoints-redis.js';
import { HeapGuard } from './heap-guard.js';
import { DEFAULT_MEMORY, planMemory } from './memory-budget.js';
import { syncKind } from './sync-kind.js';
import type {
  CheckpointStore,
  KindSummary,
  PublishTarget,
  RunOutcome,
  SyncOptions,
  SyncSummary,
} from './types.js';

export async function runSync(options: SyncOptions): Promise<SyncSummary> {
  if (options.checkpoints === 'redis' && !options.redisUrl) {
    throw new ConfigError('REDIS_URL', 'is required with --checkpoints redis; set REDIS_URL or --redis-url');
  }
  const memory = planMemory(options.memory ?? DEFAULT_MEMORY, options.concurrency);
  const logger = options.logger ?? silentLogger;
  const signal = options.signal ?? new AbortController().signal;
  const runId = randomUUID();
  const startedAt = new Date();
  const remote =
    options.redisUrl && options.checkpoints === 'redis'
      ? new RedisCheckpointStore(options.redisUrl, options.redisPrefix)
      : undefined;
  const client = new ListingClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    rateLimit: options.rateLimit,
    // Parallel slices start together; the rate still holds over time.
    burst: options.concurrency,
    metadataEncoding: options.metadataEncoding,
    logger,
  });
  let db: Database | undefined;
  let reads: ReadServer | undefined;
  try {
    db = await Database.open(options.db, { lockWaitMs: options.lockWait, logger, memory: memory.duckdb });
    // Reports, status, query and export ask this process while it holds the file.
    const publishDir = options.publish ? `${options.publish.dir.replace(/\/+$/, '')}/` : undefined;
    reads = await serveReads(db, { logger, ...(publishDir ? { readableDirs: [publishDir] } : {}) });
    const local = new DuckDbCheckpointStore(db);
    const stores: CheckpointStore[] = remote ? [local, remote] : [local];
    const ctx = {
      db,
      loader: new JobLoader(db, { logger }),
      client,
      stores,
      options,
      memory,
      heap: new HeapGuard(memory.heapBytes),
      runId,
      startedAt,
      logger,
      signal,
    };
    const kinds: KindSummary[] = [];
    let unrecoverable: Error | undefined;
    for (const kind of options.kinds) {
      if (signal.aborted) break;
      const checkpoint = await resolveCheckpoint(db, local, remote, kind);
      try {
        kinds.push(await syncKind(ctx, kind, checkpoint));
      } catch (thrown) {
        const error = toError(thrown);
        const summary = (error as Error & { summary?: KindSummary }).summary;
        if (!summary || !ofOneKind(error)) throw error;
        // Not logged as an error here: the summary carries it, and the caller reports it once
        // (the sync command's summary line, the worker's "job failed" line).
        logger.debug({ kind, err: { name: error.name, message: error.message } }, 'sync of a kind failed');
        kinds.push(summary);
        if (!isRetryable(error)) unrecoverable ??= error;
      }
    }
    const outcome = overall(kinds, signal.aborted);
    if (unrecoverable) throw Object.assign(unrecoverable, { syncSummary: { runId, outcome, kinds } });
    if (outcome !== 'ok' || !options.publish) return { runId, outcome, kinds };
    return { runId, outcome, kinds, published: await publish(db, options.publish, logger) };
  } finally {
    await reads?.close();
    await remote?.close();
    await client.close();
    await db?.close();
  }
}

/**
 * Failures that concern one kind's listing, after which the other kind may well sync: retryable
 * ones, a record over the ceiling, a refused deletion. Anything else (a refused key, a bad setting,
 * an untrusted certificate, a database error, a bug) would fail every kind alike and stops the run.
 */
function ofOneKind(error: Error): boolean {
  return isRetryable(error) || error instanceof ResponseTooLargeError || error instanceof DeletionGuardError;
}

/** The run's summary a thrown failure carries (runSync throws a non-retryable failure after every kind ran). */
export function summaryOf(error: unknown): SyncSummary | undefined {
  return error instanceof Error ? (error as Error & { syncSummary?: SyncSummary }).syncSummary : undefined;
}

/** A failed publish fails the run (exit 1, the job retried); what was synced stays committed. */
async function publish(db: Database, target: PublishTarget, logger: Logger): Promise<PublishResult> {
  try {
    const result = await publishDataset({ db, dir: target.dir, raw: target.raw });
    logger.info(
      { ...result },
      'published %d partition files (%d unchanged)',
      result.written,
      result.unchanged,
    );
    return result;
  } catch (error) {
    const message = toError(error).message.split('\n')[0];
    throw new DatabaseError(`could not publish to ${target.dir}: ${message}`, target.dir, true, false, {
      hint: 'check free space and that the folder is writable; the sync itself is committed and the next run publishes again',
      cause: error,
    });
  }
}

function overall(kinds: readonly KindSummary[], aborted: boolean): RunOutcome {
  if (kinds.some((k) => k.outcome === 'failed')) return 'failed';
  if (aborted || kinds.some((k) => k.outcome === 'interrupted')) return 'interrupted';
  return 'ok';
}

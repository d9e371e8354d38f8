/**
 * One sync run over the selected kinds: opens the DuckDB file (the only writer), the client and the
 * checkpoint stores, syncs each kind in turn, and closes everything it opened. A failure of one
 * kind's listing is recorded and the next kind still runs (a huge record or a refused deletion in
 * one list must not starve the other); a failure every kind would meet (a refused key, a bad
 * setting, an untrusted certificate) stops the run and is thrown. A non-retryable failure of one
 * kind is thrown once every kind ran, carrying the run's summary (`syncSummary`), so the CLI can
 * report each kind and the worker does not retry it.
 *
 * `runSync(plan, resources)`: the plan says what to do (kinds, window, paging, budget), the
 * resources what to do it with (the file, the listing, the checkpoint stores, logger, signal,
 * progress). The CLI and the worker pass their resolved SyncOptions as both; defaults come from
 * src/config.ts through sync/plan-defaults.ts.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
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
import { RecordLoader } from '../load/record-loader.js';
import { type Logger, silentLogger } from '../log.js';
import { RECORD_SHAPE } from '../normalize/record-shape.js';
import { Database } from '../store/database.js';
import { DEFAULT_BUDGET } from './bounded-page.js';
import { resolveCheckpoint } from './checkpoints.js';
import { DuckDbCheckpointStore } from './checkpoints-duckdb.js';
import { RedisCheckpointStore } from './checkpoints-redis.js';
import { HeapGuard } from './heap-guard.js';
import type { KindRunContext } from './kind-context.js';
import { ListingService } from './listing-service.js';
import type { ListingSource } from './listing-source.js';
import { DEFAULT_MEMORY, planMemory } from './memory-budget.js';
import { KindRunFailed, withSummaries } from './run-failures.js';
import { syncKind } from './sync-kind.js';
import type {
  CheckpointStore,
  KindSummary,
  PublishTarget,
  RunOutcome,
  SyncKind,
  SyncPlan,
  SyncResources,
  SyncSummary,
} from './types.js';

export { kindSummaryOf, summaryOf } from './run-failures.js';

export async function runSync(plan: SyncPlan, resources: SyncResources): Promise<SyncSummary> {
  if (resources.checkpoints === 'redis' && !resources.redisUrl) {
    throw new ConfigError('REDIS_URL', 'is required with --checkpoints redis; set REDIS_URL or --redis-url');
  }
  const memory = planMemory(plan.memory ?? DEFAULT_MEMORY, plan.concurrency);
  const logger = resources.logger ?? silentLogger;
  const signal = resources.signal ?? new AbortController().signal;
  const runId = randomUUID();
  const startedAt = new Date();
  const remote =
    resources.redisUrl && resources.checkpoints === 'redis'
      ? new RedisCheckpointStore(resources.redisUrl, resources.redisPrefix)
      : undefined;
  // A source given stays the caller's; a service opened here is closed here.
  let opened: ListingService | undefined;
  let client: ListingSource;
  if ('source' in resources) client = resources.source;
  else {
    const http = new ListingClient({
      baseUrl: resources.baseUrl,
      apiKey: resources.apiKey,
      rateLimit: resources.rateLimit,
      // Parallel slices start together; the rate still holds over time.
      burst: plan.concurrency,
      metadataEncoding: resources.metadataEncoding,
      // Each record is checked against the schema's shape as the body is scanned (src/normalize).
      itemShape: RECORD_SHAPE,
      logger,
    });
    client = opened = new ListingService(http);
  }
  let db: Database | undefined;
  let reads: ReadServer | undefined;
  try {
    if (!existsSync(resources.db)) {
      await checkService(client, plan, signal);
      if (signal.aborted) return { runId, outcome: 'interrupted', kinds: [], notStarted: [...plan.kinds] };
    }
    db = await Database.open(resources.db, { lockWaitMs: resources.lockWait, logger, memory: memory.duckdb });
    // Reports, status, query and export ask this process while it holds the file.
    const publishDir = plan.publish ? `${plan.publish.dir.replace(/\/+$/, '')}/` : undefined;
    reads = await serveReads(db, { logger, ...(publishDir ? { readableDirs: [publishDir] } : {}) });
    const local = new DuckDbCheckpointStore(db);
    const stores: CheckpointStore[] = remote ? [local, remote] : [local];
    const ctx: KindRunContext = {
      db,
      loader: new RecordLoader(db, { logger }),
      client,
      stores,
      plan,
      memory,
      heap: new HeapGuard(memory.heapBytes),
      runId,
      startedAt,
      logger,
      signal,
      onProgress: resources.onProgress,
    };
    const kinds: KindSummary[] = [];
    const notStarted: SyncKind[] = [];
    let unrecoverable: Error | undefined;
    for (const kind of plan.kinds) {
      if (signal.aborted) {
        notStarted.push(kind);
        continue;
      }
      const checkpoint = await resolveCheckpoint(db, local, remote, kind);
      try {
        kinds.push(await syncKind(ctx, kind, checkpoint));
      } catch (thrown) {
        if (!(thrown instanceof KindRunFailed)) throw toError(thrown);
        const { cause, summary } = thrown;
        if (!ofOneKind(cause)) throw withSummaries(cause, { summary });
        // Not logged as an error here: the summary carries it, and the caller reports it once
        // (the sync command's summary line, the worker's "job failed" line).
        logger.debug({ kind, err: { name: cause.name, message: cause.message } }, 'sync of a kind failed');
        kinds.push(summary);
        if (!isRetryable(cause)) unrecoverable ??= withSummaries(cause, { summary });
      }
    }
    const ran: SyncSummary = { runId, outcome: overall(kinds, signal.aborted), kinds, notStarted };
    const summary = plan.publish
      ? {
          ...ran,
          ...(await publishAfter(db, plan.publish, ran, { stopped: signal.aborted, unrecoverable, logger })),
        }
      : ran;
    if (unrecoverable) throw withSummaries(unrecoverable, { syncSummary: summary });
    return summary;
  } finally {
    await reads?.close();
    await remote?.close();
    await opened?.close();
    await db?.close();
  }
}

/**
 * Before a run creates the database file, one page of one job asks the service whether it takes
 * the key and knows the list path: a refused key or a wrong base URL then leaves nothing behind.
 * A record over the ceiling is left for the walk, which fails that kind alone; a stop ends the
 * check quietly (the caller looks at the signal).
 */
async function checkService(client: ListingSource, plan: SyncPlan, signal: AbortSignal): Promise<void> {
  const [kind] = plan.kinds;
  if (kind === undefined) return;
  const maxBytes = plan.maxRecordBytes ?? DEFAULT_BUDGET.recordBytes;
  try {
    await client.getPage(kind, { limit: 1 }, { maxBytes, signal });
  } catch (error) {
    if (signal.aborted || error instanceof ResponseTooLargeError) return;
    throw toError(error);
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

/**
 * After the kinds ran, what they committed is published, even when a kind failed: the manifest
 * names that kind stale, with the end of its last successful sync (docs/decisions/
 * 0001-publish-what-committed.md). Not published when the run was stopped, or when no kind
 * synced; then `notPublished` says why and the dataset keeps its previous refresh. A failed
 * publish fails the run (exit 1, the job retried), unless a failure no retry fixes already does.
 */
async function publishAfter(
  db: Database,
  target: PublishTarget,
  run: SyncSummary,
  how: { readonly stopped: boolean; readonly unrecoverable: Error | undefined; readonly logger: Logger },
): Promise<Pick<SyncSummary, 'published' | 'notPublished'>> {
  const failed = run.kinds.filter((k) => k.outcome === 'failed').map((k) => k.kind);
  const reason = how.stopped
    ? 'the run was interrupted'
    : !run.kinds.some((k) => k.outcome === 'ok')
      ? `the sync of ${failed.join(' and ')} failed`
      : undefined;
  if (reason === undefined) {
    try {
      return { published: await publish(db, target, how.logger) };
    } catch (error) {
      if (how.unrecoverable === undefined) throw error;
      return notPublished(target, toError(error).message, how.logger);
    }
  }
  return notPublished(target, reason, how.logger);
}

function notPublished(
  target: PublishTarget,
  reason: string,
  logger: Logger,
): Pick<SyncSummary, 'notPublished'> {
  logger.info({ dir: target.dir, reason }, 'the dataset in %s was not refreshed: %s', target.dir, reason);
  return { notPublished: { dir: target.dir, reason } };
}

/** Publishes the dataset; a failure is a retryable DatabaseError naming the folder. */
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
    throw new DatabaseError(`could not publish to ${target.dir}: ${message}`, {
      path: target.dir,
      retryable: true,
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

/**
 * One sync run over the selected kinds: opens the DuckDB file (the only writer), the client and the
 * checkpoint stores, syncs each kind in turn, and closes everything it opened. A failure of one
 * kind's listing is recorded and the next kind still runs (ofOneKind); a failure every kind would
 * meet stops the run and is thrown, carrying the run's summary (`syncSummary`: the kinds that ran,
 * the failed one last, and those never reached). A non-retryable failure of one kind is thrown once
 * every kind ran, carrying the run's summary too, so the worker does not retry it.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  ConfigError,
  DeletionGuardError,
  isRetryable,
  ProtocolError,
  ResponseTooLargeError,
  toError,
} from '../errors.js';
import type { Listing } from '../extract/index.js';
import { ListingClient } from '../extract/index.js';
import type { JobKind } from '../kinds.js';
import { RecordLoader } from '../load/loader.js';
import { silentLogger } from '../log.js';
import { planMemory } from '../memory/budget.js';
import { HeapGuard } from '../memory/heap-guard.js';
import { RecordScanner } from '../normalize/index.js';
import { type Database, openWriter, tombstoneCount } from '../store/index.js';
import { DuckDbCheckpointStore, resolveCheckpoint } from './checkpoints/duckdb-store.js';
import { recordAbandonedRuns, syncKind } from './kind-run.js';
import type { KindRunContext } from './kind-summary.js';
import { RetentionWatch, retentionEdges } from './retention.js';
import { KindRunFailed, withSummaries } from './run-failures.js';
import type {
  CheckpointStore,
  KindSummary,
  RunOutcome,
  SyncPlan,
  SyncResources,
  SyncSummary,
} from './types.js';
import { redisUrlProblem } from './types.js';

/** How the kinds of a run ended: the summary, and a failure no retry fixes, thrown once all is done. */
export interface KindsOutcome {
  readonly summary: SyncSummary;
  readonly unrecoverable: Error | undefined;
}

/** What a caller runs with the file open, around the kinds (`kinds()` syncs them, and is called once). */
type AroundKinds = (db: Database, kinds: () => Promise<KindsOutcome>) => Promise<KindsOutcome>;

export async function runSync(
  plan: SyncPlan,
  resources: SyncResources,
  around: AroundKinds = (_db, kinds) => kinds(),
): Promise<SyncSummary> {
  const refused = redisUrlProblem(resources);
  if (refused) throw new ConfigError('REDIS_URL', refused);
  const memory = planMemory(plan.memory, plan.concurrency);
  const logger = resources.logger ?? silentLogger;
  const signal = resources.signal ?? new AbortController().signal;
  const runId = randomUUID();
  const startedAt = new Date();
  const remote =
    resources.redisUrl && resources.checkpoints === 'redis'
      ? // Imported only when used: loading ioredis would slow every other run's start.
        new (await import('./checkpoints/redis-store.js')).RedisCheckpointStore(
          resources.redisUrl,
          resources.redisPrefix,
          { signal },
        )
      : undefined;
  // A listing given stays the caller's; a client opened here is closed here.
  let opened: ListingClient | undefined;
  let client: Listing;
  if ('source' in resources) client = resources.source;
  else {
    client = opened = new ListingClient({
      baseUrl: resources.baseUrl,
      apiKey: resources.apiKey,
      rateLimit: resources.rateLimit,
      // Parallel slices start together; the rate still holds over time.
      burst: plan.concurrency,
      // Every request of the run shares these places in flight, which 429s lower (src/extract/throttle.ts).
      concurrency: plan.concurrency,
      // The body's one scan reads each record for src/normalize too.
      scanner: RecordScanner,
      logger,
    });
  }
  let db: Database | undefined;
  try {
    if (!existsSync(resources.db)) {
      await checkService(client, plan, signal);
      // Stopped before the file existed: nothing ran, nothing is made.
      if (signal.aborted) return { runId, outcome: 'interrupted', kinds: [], notStarted: [...plan.kinds] };
    }
    db = await openWriter(resources.db, { lockWaitMs: resources.lockWait, logger, memory: memory.duckdb });
    const open = db;
    await recordAbandonedRuns(open, runId, new Date(), logger);
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
      retention: new RetentionWatch(
        retentionEdges(startedAt, plan.serviceRetention),
        plan.serviceRetention,
        logger,
      ),
      tombstones: (await tombstoneCount(db)) > 0,
      logger,
      signal,
      onProgress: resources.onProgress,
    };
    const syncKinds = async (): Promise<KindsOutcome> => {
      const kinds: KindSummary[] = [];
      const notStarted: JobKind[] = [];
      let unrecoverable: Error | undefined;
      for (const kind of plan.kinds) {
        if (signal.aborted) {
          notStarted.push(kind);
          continue;
        }
        const checkpoint = await resolveCheckpoint(open, remote, kind);
        try {
          kinds.push(await syncKind(ctx, kind, checkpoint));
        } catch (thrown) {
          if (!(thrown instanceof KindRunFailed)) throw toError(thrown);
          const { cause, summary } = thrown;
          kinds.push(summary);
          if (!ofOneKind(cause)) {
            const rest = plan.kinds.slice(plan.kinds.indexOf(kind) + 1);
            const syncSummary: SyncSummary = {
              runId,
              outcome: 'failed',
              kinds,
              notStarted: [...notStarted, ...rest],
            };
            throw withSummaries(cause, { summary, syncSummary });
          }
          // Not logged as an error here: the summary carries it, and the caller reports it once
          // (the sync command's summary line, the worker's "job failed" line).
          logger.debug({ kind, err: { name: cause.name, message: cause.message } }, 'sync of a kind failed');
          if (!isRetryable(cause)) unrecoverable ??= withSummaries(cause, { summary });
        }
      }
      return {
        summary: { runId, outcome: overall(kinds, signal.aborted), kinds, notStarted },
        unrecoverable,
      };
    };
    const { summary, unrecoverable } = await around(db, syncKinds);
    if (unrecoverable) throw withSummaries(unrecoverable, { syncSummary: summary });
    return summary;
  } finally {
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
async function checkService(client: Listing, plan: SyncPlan, signal: AbortSignal): Promise<void> {
  const [kind] = plan.kinds;
  if (kind === undefined) return;
  const maxBytes = plan.maxRecordBytes;
  try {
    await client.getPage(kind, { limit: 1 }, { maxBytes, signal });
  } catch (error) {
    if (signal.aborted || error instanceof ResponseTooLargeError) return;
    throw toError(error);
  }
}

/**
 * Failures that concern one kind's listing, after which the other kind may well sync: retryable
 * ones, a record over the ceiling, a listing that broke its paging contract (a next link that does
 * not advance or cannot be read), a refused deletion. Anything else (a refused key, a bad setting,
 * an untrusted certificate, a database error, a bug) would fail every kind alike and stops the run.
 */
function ofOneKind(error: Error): boolean {
  return (
    isRetryable(error) ||
    error instanceof ResponseTooLargeError ||
    error instanceof ProtocolError ||
    error instanceof DeletionGuardError
  );
}

function overall(kinds: readonly KindSummary[], aborted: boolean): RunOutcome {
  if (kinds.some((k) => k.outcome === 'failed')) return 'failed';
  if (aborted || kinds.some((k) => k.outcome === 'interrupted')) return 'interrupted';
  return 'ok';
}

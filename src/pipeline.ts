/**
 * A sync with what runs beside it: the read socket while the run holds the file, the publish after
 * the kinds, and the rewrite of a file an erasure left its bytes in (src/store/erase.ts) once the
 * run has closed it. The CLI's `sync` and the worker's sync job run this; src/sync knows of neither.
 */
import { basename, dirname, join } from 'node:path';
import { isBucketUrl } from './analytics/publish/bucket-url.js';
import type { PublishResult, PublishTarget } from './analytics/publish/publish.js';
import { serveReads } from './analytics/read/read-server.js';
import { DatabaseError, StorageError, toError } from './errors.js';
import type { JobKind } from './kinds.js';
import { type Logger, silentLogger } from './log.js';
import { planReaderMemory } from './memory/reader-memory.js';
import {
  type Database,
  rewriteErasedFile,
  runFreshness,
  unwrittenErasures,
  withReadingMemory,
} from './store/index.js';
import { type KindsOutcome, runSync } from './sync/run.js';
import { summaryOf, withSummaries } from './sync/run-failures.js';
import type { SyncOptions, SyncPlan, SyncResources, SyncSummary } from './sync/types.js';

export interface PipelinePlan extends SyncPlan {
  /** After the run, refresh the Parquet dataset in `dir`; null: no dataset. */
  readonly publish: PublishTarget | null;
}

/** Every setting of a pipeline run, flat, as the CLI and the worker resolve them. */
export interface PipelineOptions extends SyncOptions, PipelinePlan {}

export interface PipelineSummary extends SyncSummary {
  /** What the publish after the run wrote (--publish). */
  readonly published?: PublishResult;
  /** With --publish, why the dataset was not refreshed this run (interrupted, no kind synced). */
  readonly notPublished?: { readonly dir: string; readonly reason: string };
  /** Per kind that ran, seconds from each job's completed_at upstream to its write (a histogram). */
  readonly freshness?: Partial<Record<JobKind, readonly number[]>>;
}

type PublishOutcome = Pick<PipelineSummary, 'published' | 'notPublished'>;

export async function runPipeline(plan: PipelinePlan, resources: SyncResources): Promise<PipelineSummary> {
  const logger = resources.logger ?? silentLogger;
  let published: PublishOutcome = {};
  let unwritten = 0;
  let freshness: PipelineSummary['freshness'];
  const around = async (db: Database, kinds: () => Promise<KindsOutcome>): Promise<KindsOutcome> => {
    // DuckDB writes the dataset's files only below this folder: the dataset's own, or a bucket's staging.
    const publishDir = plan.publish
      ? `${localFolderOf(plan.publish, db.path).replace(/\/+$/, '')}/`
      : undefined;
    const reads = await serveReads(db, { logger, ...(publishDir ? { readableDirs: [publishDir] } : {}) });
    try {
      let outcome: KindsOutcome;
      try {
        outcome = await kinds();
      } finally {
        // Also when a failure stopped the run: the erasures its kinds committed are rewritten too.
        unwritten = await unwrittenErasures(db).catch(() => 0);
      }
      freshness = await freshnessOf(db, outcome, logger);
      if (plan.publish) {
        const target = plan.publish;
        // The publish reads within the memory of a reading that writes Parquet (--publish-raw: of every raw).
        const reading = planReaderMemory(plan.memory, db.path, {
          readsRaw: target.raw,
          writesParquet: true,
        });
        published = await withReadingMemory(db, reading, () =>
          publishAfter(db, target, outcome, resources.signal, logger),
        );
      }
      return outcome;
    } finally {
      await reads.close();
    }
  };
  // Whenever the kinds ran, a failed run included (its erasures are committed), unless a signal stopped it.
  const rewrite = async () => {
    if (unwritten === 0 || resources.signal?.aborted === true) return;
    logger.info({ db: resources.db }, 'rewriting %s without the bytes of erased jobs', resources.db);
    await rewriteErasedFile(resources.db, { memory: plan.memory, lockWaitMs: resources.lockWait, logger });
  };
  try {
    let summary: SyncSummary;
    try {
      summary = await runSync(plan, resources, around);
    } catch (error) {
      // The run's own failure is what it reports; an erasure left unwritten is the next run's.
      await rewrite().catch((rewriting: unknown) => {
        logger.warn(
          { err: toError(rewriting) },
          'could not rewrite %s; the next sync or erase does',
          resources.db,
        );
      });
      throw error;
    }
    await rewrite();
    // Stopped after every kind ended (during the publish): the run is interrupted all the same.
    const stopped = summary.outcome === 'ok' && resources.signal?.aborted === true;
    return {
      ...summary,
      ...(stopped ? { outcome: 'interrupted' as const } : {}),
      ...published,
      ...(freshness ? { freshness } : {}),
    };
  } catch (error) {
    const ran = summaryOf(error);
    throw ran ? withSummaries(toError(error), { syncSummary: { ...ran, ...published } }) : error;
  }
}

/** The freshness figures of the kinds that ran; none when they cannot be read (never a failed run). */
async function freshnessOf(
  db: Database,
  { summary }: KindsOutcome,
  logger: Logger,
): Promise<PipelineSummary['freshness']> {
  const figures: Partial<Record<JobKind, readonly number[]>> = {};
  try {
    for (const k of summary.kinds) {
      // A kind that wrote no job brought none into the file: no figure, and no statement to learn it.
      figures[k.kind] =
        k.inserted + k.updated + k.restored + k.deleted + k.expired === 0
          ? []
          : await runFreshness(db, { kind: k.kind, since: k.startedAt });
    }
    return figures;
  } catch (error) {
    logger.debug({ err: toError(error) }, 'could not read the freshness of the run');
    return undefined;
  }
}

/**
 * The local folder a publish writes into: the dataset's, or a bucket's staging folder beside the
 * database file (on its disk, not a tmpfs; one writer per file, so one publish at a time uses it).
 */
function localFolderOf(target: PublishTarget, dbPath: string): string {
  return isBucketUrl(target.dir) ? join(dirname(dbPath), `.${basename(dbPath)}.publish`) : target.dir;
}

/**
 * After the kinds ran, what they committed is published, even when a kind failed: the manifest
 * names that kind stale (docs/decisions/0014-published-dataset.md). Not published when the run was
 * stopped, or when no kind synced: `notPublished` says why. A failed publish fails the run (exit 1,
 * the job retried), unless a failure no retry fixes already does.
 */
async function publishAfter(
  db: Database,
  target: PublishTarget,
  { summary, unrecoverable }: KindsOutcome,
  signal: AbortSignal | undefined,
  logger: Logger,
): Promise<PublishOutcome> {
  const failed = summary.kinds.filter((k) => k.outcome === 'failed').map((k) => k.kind);
  const reason = signal?.aborted
    ? 'the run was interrupted'
    : !summary.kinds.some((k) => k.outcome === 'ok')
      ? `the sync of ${failed.join(' and ')} failed`
      : undefined;
  if (reason === undefined) {
    // Asked to stop during the publish, DuckDB stops the statement it runs (a COPY can take minutes).
    const stop = () => db.interrupt();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      return { published: await publish(db, target, logger, signal) };
    } catch (error) {
      if (signal?.aborted) return notPublished(target, 'the run was interrupted', logger);
      if (unrecoverable === undefined) throw error;
      return notPublished(target, toError(error).message, logger);
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  }
  return notPublished(target, reason, logger);
}

function notPublished(target: PublishTarget, reason: string, logger: Logger): PublishOutcome {
  logger.info({ dir: target.dir, reason }, 'the dataset in %s was not refreshed: %s', target.dir, reason);
  return { notPublished: { dir: target.dir, reason } };
}

/** A failure is a retryable DatabaseError naming the folder, or the bucket's StorageError. */
async function publish(
  db: Database,
  target: PublishTarget,
  logger: Logger,
  signal: AbortSignal | undefined,
): Promise<PublishResult> {
  logger.info({ dir: target.dir }, 'publishing to %s', target.dir);
  try {
    // Loaded only for a run that publishes: the Parquet and manifest writers weigh on every start.
    const { publishDataset } = await import('./analytics/publish/publish.js');
    const result = await publishDataset({
      ...target,
      db,
      ...(isBucketUrl(target.dir) ? { staging: localFolderOf(target, db.path) } : {}),
      signal,
    });
    logger.info(
      { ...result },
      'published %d partition files (%d unchanged)',
      result.written,
      result.unchanged,
    );
    return result;
  } catch (error) {
    if (error instanceof StorageError) throw error;
    const message = toError(error).message.split('\n')[0];
    throw new DatabaseError(`could not publish to ${target.dir}: ${message}`, {
      path: target.dir,
      retryable: true,
      hint: 'check free space and that the folder is writable; the sync itself is committed and the next run publishes again',
      cause: error,
    });
  }
}

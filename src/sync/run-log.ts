/**
 * The `sync_runs` table: one row per run and kind, opened as 'running' and closed with the outcome;
 * a row its writer never closed (killed, or unable to write) is closed 'abandoned' by the next run.
 */

import type { Logger } from '../log.js';
import { abandonRuns, type Database, finishRun, insertRun } from '../store/index.js';
import type { KindSummary } from './types.js';

export async function recordRunStart(db: Database, run: KindSummary): Promise<void> {
  await insertRun(db, {
    run_id: run.runId,
    kind: run.kind,
    mode: run.mode,
    window_after: run.windowAfter,
    window_before: run.windowBefore,
    started_at: run.startedAt,
  });
}

export async function recordRunFinish(db: Database, run: KindSummary): Promise<void> {
  await finishRun(db, {
    run_id: run.runId,
    kind: run.kind,
    window_after: run.windowAfter,
    pages: run.pages,
    requests: run.requests,
    retries: run.retries,
    jobs_fetched: run.jobsFetched,
    inserted: run.inserted,
    updated: run.updated,
    unchanged: run.unchanged,
    quarantined: run.quarantined,
    deleted: run.deleted,
    expired: run.expired,
    restored: run.restored,
    finished_at: run.finishedAt,
    outcome: run.outcome,
    error: run.error ?? null,
  });
}

/** What an abandoned run's `error` says. */
export const ABANDONED_ERROR =
  'its writer stopped before recording how the run ended (killed, or the file could not be written); what it committed stays';

/**
 * Closes the runs another writer left 'running' as 'abandoned', ended `at`. Called by a run with the
 * file's writer lock held and the file open, before its own rows: no other writer can be running
 * then, so every 'running' row but this run's belongs to a writer that is gone.
 */
export async function recordAbandonedRuns(
  db: Database,
  runId: string,
  at: Date,
  logger: Logger,
): Promise<void> {
  const closed = await abandonRuns(db, {
    run_id: runId,
    finished_at: at.toISOString(),
    error: ABANDONED_ERROR,
  });
  if (closed.length === 0) return;
  logger.warn(
    { abandoned: closed.map((r) => `${r.run_id} ${r.kind}`) },
    'closed runs left running by a writer that is gone as abandoned',
  );
}

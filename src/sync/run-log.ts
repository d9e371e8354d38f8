/** The `sync_runs` table: one row per run and kind, opened as 'running' and closed with the outcome. */
import type { Database } from '../load/database.js';
import { finishRun, insertRun } from '../load/statements/runs.js';
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

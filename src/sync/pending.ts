/**
 * Jobs seen `queued` or `processing` are fetched again on every run until they reach `done` or
 * `error`, even when they are older than the window. The service cannot fetch one job by id through
 * the list endpoints, so each is asked for with a window of ±1 ms around its created_at (jobs
 * sharing a timestamp share the request).
 */
import type { ListingClient, ListName } from '../api/index.js';
import type { Database } from '../store/database.js';
import type { SyncKind } from './types.js';

export interface PendingJob {
  readonly id: string;
  readonly created_at: string;
}

/** Pending jobs of a kind created in [since, before). */
export async function pendingJobs(
  db: Database,
  kind: SyncKind,
  since: Date,
  before: Date,
): Promise<PendingJob[]> {
  return db.all<PendingJob>(db.query('jobs-pending'), {
    kind,
    since: since.toISOString(),
    before: before.toISOString(),
  });
}

/**
 * Fetches the current records of pending jobs, one request per distinct created_at, `parallel` at a
 * time (the run's concurrency: an idle run is mostly these round trips). Pages come in order.
 */
export async function* fetchPending(
  client: ListingClient,
  list: ListName,
  pending: readonly PendingJob[],
  pageSize: number,
  signal?: AbortSignal,
  parallel = 1,
): AsyncGenerator<{ readonly items: readonly unknown[]; readonly texts: readonly string[] | undefined }> {
  const instants = [...new Set(pending.map((job) => Date.parse(job.created_at)))];
  for (let start = 0; start < instants.length; start += Math.max(1, parallel)) {
    const batch = instants.slice(start, start + Math.max(1, parallel));
    const pages = await Promise.all(
      batch.map((instant) =>
        client.getPage(
          list,
          { afterDate: new Date(instant - 1), beforeDate: new Date(instant + 1), limit: pageSize },
          { signal },
        ),
      ),
    );
    for (const page of pages) yield { items: page.items, texts: page.texts };
  }
}

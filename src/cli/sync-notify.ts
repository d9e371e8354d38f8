/** `sync --notify URL`: the Notifier of a one-shot run, seeded with how each kind's last run ended. */
import { existsSync } from 'node:fs';
import { TsyncError, toError } from '../errors.js';
import type { JobKind } from '../kinds.js';
import type { Logger } from '../log.js';
import { lastRunOutcomes, openReadOnly } from '../store/index.js';
import { kindSummaryOf, summaryOf } from '../sync/run.js';
import type { SyncOptions, SyncSummary } from '../sync/types.js';
import { Notifier } from '../worker/notify.js';

export async function syncNotifier(url: string, options: SyncOptions, logger: Logger): Promise<Notifier> {
  const previous = new Map<JobKind, 'ok' | 'failed'>();
  if (existsSync(options.db)) {
    const db = await openReadOnly(options.db, { lockWaitMs: options.lockWait });
    try {
      for (const row of await lastRunOutcomes(db)) previous.set(row.kind, row.outcome);
    } finally {
      await db.close();
    }
  }
  return new Notifier({ url, apiKey: options.apiKey, command: 'sync', db: options.db, logger, previous });
}

/** Tells the notifier how each kind of a run ended; `unrecoverable` is the message no retry fixes. */
export async function notifySummary(
  notifier: Notifier | undefined,
  summary: SyncSummary,
  unrecoverable?: string,
): Promise<void> {
  for (const k of summary.kinds) {
    await notifier?.runEnded({
      kind: k.kind,
      mode: k.mode,
      outcome: k.outcome,
      runId: summary.runId,
      error: k.error ?? null,
      retryable: k.outcome === 'failed' ? k.error !== unrecoverable : null,
    });
  }
}

/**
 * A run that threw (a refused key, a bad setting) stopped at the kind it was syncing (the error's
 * summary names it; else the first); later kinds did not run, and sync_runs records only that one.
 */
export async function notifyThrown(
  notifier: Notifier | undefined,
  options: SyncOptions,
  thrown: unknown,
): Promise<void> {
  const error = toError(thrown);
  if (error instanceof TsyncError && error.code === 'INTERRUPTED') return;
  // A failure no retry fixes carries the run's summary: every kind it reached, each as it ended.
  const run = summaryOf(error);
  // A kind's summary holds the error as toLine() gives it (src/sync/kind-run.ts).
  if (run) return notifySummary(notifier, run, error instanceof TsyncError ? error.toLine() : error.message);
  const summary = kindSummaryOf(error);
  const kind = summary?.kind ?? options.kinds[0];
  if (kind === undefined) return;
  await notifier?.runEnded({
    kind,
    mode:
      summary?.mode ??
      (!options.full ? 'incremental' : options.reconcileWindow === undefined ? 'full' : 'recent'),
    outcome: 'failed',
    runId: summary?.runId ?? null,
    error: error instanceof TsyncError ? error.toLine() : error.message,
    retryable: error instanceof TsyncError ? error.retryable : null,
  });
}

/** `transcript-sync sync`: one run of the engine, for a terminal or cron. */
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { given, resolveFormat, resolveSettings } from '../../config/resolve.js';
import { RUN_FLAGS, resolveRunOptions } from '../../config/sync-defaults.js';
import { ConfigError, TsyncError, toError } from '../../errors.js';
import type { JobKind } from '../../kinds.js';
import { type Logger, outcomeWriter } from '../../log.js';
import { runPipeline } from '../../pipeline.js';
import { lastRunOutcomes, openReadOnly } from '../../store/index.js';
import { kindSummaryOf, summaryOf } from '../../sync/run-failures.js';
import type { SyncOptions, SyncSummary } from '../../sync/types.js';
import { jsonLine } from '../../util/snake-case.js';
import type { Notifier } from '../../worker/notify.js';
import type { Command } from '../command.js';
import { withCommandLock } from '../lock-wait.js';
import { ProgressView } from '../progress.js';
import { failedKindsLine, quarantineNote, runLines } from '../sync-summary.js';

export const command: Command = {
  name: 'sync',
  usage:
    'sync [--kind pre-recorded|live|all] [--full [--window 1d]] [--since ISO] [--publish DIR|s3://BUCKET/PREFIX [--publish-raw]] [--db PATH] [--base-url URL] [--checkpoints duckdb|redis] [--format table|json | --json] [--notify URL]',
  description: [
    "Walks /v2/pre-recorded and /v2/live from each kind's watermark (minus --lookback), re-checks",
    'jobs still queued or processing, and upserts every job, utterance and word. A first run',
    'backfills history in time slices, oldest first; a crash resumes at the last complete slice.',
    '--full walks the whole history the service lists (back to --service-retention and a day) and',
    'marks jobs it no longer lists deleted, or expired (kept in every report) when older than the',
    'retention; --full --window 1d only the jobs created in the last day: cheap enough to run hourly.',
    'The API key comes from TSYNC_API_KEY only (never a flag). While it runs, report, status, query and',
    'export read through it (data as of its last commit). With --publish DIR it then refreshes a Parquet',
    'dataset in DIR, or with --publish s3://BUCKET/PREFIX in a bucket (see docs/querying.md, The',
    'published dataset).',
    '',
    'Pages weigh at most --page-bytes from the first request; a record over --max-record-bytes, or',
    'a listing that keeps contradicting itself (an empty or short page with a next link, a total',
    'shrinking mid-walk), fails its kind and the other kind still syncs. --full marks at most',
    '--max-delete-share of a kind deleted (default 10%, always up to 10 jobs); above that it marks',
    'nothing and exits 1 (--max-delete-share 1 once, if the service really dropped them).',
    '',
    'Exit codes: 0 the run completed (even with quarantined records), 1 it failed,',
    '2 usage or configuration error, 130 interrupted by SIGINT (Ctrl-C) and 143 by SIGTERM (what',
    'was fetched is committed; run sync again to resume).',
  ].join('\n'),
  settings: ['kind', 'full', 'reconcileWindow', 'since', 'checkpoints', 'format', 'json', ...RUN_FLAGS],
  logs: true,
  async run({ flags, env, stdout, stderr, exit }) {
    const { notify } = resolveSettings([], ['notify'], flags, env);
    const json = resolveFormat('format', flags, env) === 'json';
    const base = resolveRunOptions(flags, env);
    // Only a reconcile marks deletions. Their variables may be set for the worker's reconciles in
    // an environment this run shares; a flag is asked of this run.
    for (const name of ['onDelete', 'maxDeleteShare'] as const) {
      const setting = given(name, flags, env);
      if (!base.full && setting.source === 'flag') {
        throw new ConfigError(setting.where, 'only applies to a reconcile; add --full');
      }
    }
    const controller = new AbortController();
    const { view, logger } = ProgressView.open(stderr, base.logLevel);
    // The summary: text on a terminal, log lines (its fields snake_case) anywhere else.
    const say = outcomeWriter(stderr);
    if (base.full && base.since) logger.warn('--since is ignored by --full, which walks all history');
    // Signals are the process's: handled while this command runs, removed when it ends.
    let stoppedBy: NodeJS.Signals = 'SIGINT';
    const stopOn = (signal: NodeJS.Signals) => {
      // A second signal quits at once where main.ts binds `exit`; in-process the clean stop goes on.
      if (controller.signal.aborted) return exit?.(signalExitCode(signal));
      stoppedBy = signal;
      logger.info(`${signal}: committing what was fetched, then stopping (again to quit at once)`);
      controller.abort(new Error(signal));
    };
    process.on('SIGINT', stopOn).on('SIGTERM', stopOn);
    try {
      const lock = { db: base.db, command: 'sync', waitMs: base.lockWait, logger };
      const summary = await withCommandLock(stderr, lock, async () => {
        const notifier = notify ? await syncNotifier(notify, base, logger) : undefined;
        try {
          const result = await runPipeline(base, {
            ...base,
            logger,
            signal: controller.signal,
            onProgress: view.update,
          });
          await notifySummary(notifier, result);
          return result;
        } catch (error) {
          await notifyThrown(notifier, base, error);
          throw error;
        }
      }).catch((error: unknown) => {
        // A failure no retry fixes still comes after every kind ran: report each, then the error.
        view.done();
        const ran = summaryOf(error);
        if (ran) for (const line of runLines(ran)) say(line.level, line.text, line.fields);
        throw error;
      });
      view.done();
      for (const line of runLines(summary)) say(line.level, line.text, line.fields);
      const note = quarantineNote(summary.kinds, base.db);
      if (note) say('warn', note);
      if (json) stdout.write(jsonLine(summary));
      const failed = summary.outcome === 'failed' ? failedKindsLine(summary.kinds, 'run') : undefined;
      if (failed) say('error', failed);
      if (summary.outcome === 'interrupted') return signalExitCode(stoppedBy);
      return summary.outcome === 'ok' ? 0 : 1;
    } finally {
      process.off('SIGINT', stopOn).off('SIGTERM', stopOn);
    }
  },
};

/** 128 plus the signal's number, as a shell reports a command a signal ended. */
function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

/** `--notify URL`: the Notifier of a one-shot run, seeded with how each kind's last run ended. */
async function syncNotifier(url: string, options: SyncOptions, logger: Logger): Promise<Notifier> {
  const previous = new Map<JobKind, 'ok' | 'failed'>();
  if (existsSync(options.db)) {
    const db = await openReadOnly(options.db, { lockWaitMs: options.lockWait });
    try {
      for (const row of await lastRunOutcomes(db)) previous.set(row.kind, row.outcome);
    } finally {
      await db.close();
    }
  }
  // Loaded only with --notify.
  const { Notifier } = await import('../../worker/notify.js');
  return new Notifier({ url, apiKey: options.apiKey, command: 'sync', db: options.db, logger, previous });
}

/** Tells the notifier how each kind of a run ended; `unrecoverable` is the message no retry fixes. */
async function notifySummary(notifier: Notifier | undefined, summary: SyncSummary, unrecoverable?: string) {
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

/** A run that threw stopped at the kind its error names (else the first); later kinds did not run. */
async function notifyThrown(notifier: Notifier | undefined, options: SyncOptions, thrown: unknown) {
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
      summary?.mode ?? (!options.full ? 'incremental' : options.reconcileWindow === null ? 'full' : 'recent'),
    outcome: 'failed',
    runId: summary?.runId ?? null,
    error: error instanceof TsyncError ? error.toLine() : error.message,
    retryable: error instanceof TsyncError ? error.retryable : null,
  });
}

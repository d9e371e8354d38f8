/** `transcript-sync sync`: one run of the engine, for a terminal or cron. */
import { constants } from 'node:os';
import { resolveFormat } from '../../config/output-format.js';
import { resolveSettings } from '../../config/resolve.js';
import { RUN_FLAGS, resolveRunOptions } from '../../config/sync-defaults.js';
import { outcomeWriter } from '../../log.js';
import { pipelineSummaryOf, runPipeline } from '../../pipeline.js';
import { withWriterLock } from '../../store/index.js';
import { jsonLine } from '../../util/snake-case.js';
import type { Command } from '../command.js';
import { lockWaitNotice } from '../lock-wait.js';
import { ProgressView } from '../progress.js';
import { notifySummary, notifyThrown, syncNotifier } from '../sync-notify.js';
import { quarantineNote, runLines } from '../sync-summary.js';

export const command: Command = {
  name: 'sync',
  summary: 'bring the DuckDB file up to date with the service (one run)',
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
    const controller = new AbortController();
    const { view, logger } = ProgressView.open(stderr, base.logLevel);
    // The summary: text on a terminal, log lines (its fields snake_case) anywhere else.
    const say = outcomeWriter(stderr);
    if (base.full && base.since) logger.warn('--since is ignored by --full, which walks all history');
    // Signals are the process's: handled while this command runs, removed when it ends. The exit
    // code of a stop is the shell's for the signal: 130 for SIGINT, 143 for SIGTERM.
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
      const waiting = { waitMs: base.lockWait, onWait: lockWaitNotice(stderr, base.lockWait, logger) };
      const summary = await withWriterLock({ db: base.db, command: 'sync', logger, ...waiting }, async () => {
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
        const ran = pipelineSummaryOf(error);
        if (ran) for (const line of runLines(ran)) say(line.level, line.text, line.fields);
        throw error;
      });
      view.done();
      for (const line of runLines(summary)) say(line.level, line.text, line.fields);
      const note = quarantineNote(summary.kinds, base.db);
      if (note) say('warn', note);
      if (json) stdout.write(jsonLine(summary));
      if (summary.outcome === 'failed') {
        const failed = summary.kinds.filter((k) => k.outcome === 'failed').map((k) => k.kind);
        say(
          'error',
          `transcript-sync: the sync of ${failed.join(' and ')} failed (reason above); what was committed stays, and the next run resumes from it`,
        );
      }
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

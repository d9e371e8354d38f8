/** `transcript-sync status`: what the file holds per kind and how the last run went. */
import { readerOptions, withReader } from '../../analytics/read/open-reader.js';
import { resolveFormat, resolveSettings } from '../../config/resolve.js';
import {
  completionLagByKind,
  kindStatus,
  type StalePendingRow as StalePending,
  stalePendingJobs,
} from '../../store/index.js';
import { formatDurationSetting } from '../../util/duration.js';
import { counted } from '../../util/plural.js';
import { type Command, PROGRAM } from '../command.js';
import { writeRows } from '../table.js';

export const command: Command = {
  name: 'status',
  usage: 'status [--db PATH] [--pending-max-age DURATION] [--format table|json | --json]',
  description: [
    'pending: queued/processing jobs still re-checked on every run; pending_stale: those older than',
    '--pending-max-age, no longer re-checked; an expired job is neither (the service no longer lists',
    'it). On stderr, per kind: those no run has listed since they went past it (run `sync --full`),',
    'apart from those a run listed within the last --pending-max-age as still queued or processing',
    'upstream (nothing to do here but ask the service).',
    'deleted: jobs a --full run no longer found upstream, left out of views and reports; expired: jobs',
    'older than --service-retention the service no longer lists, kept in every view (counted in jobs too).',
    'quarantined counts every unresolved record, under "unknown" when its kind is neither',
    'pre-recorded nor live.',
    'last_outcome: ok, failed, interrupted, running, or abandoned (its writer stopped without recording',
    'how the run ended, and the next run marked it).',
    'fresh_p50_s, fresh_p95_s: of the jobs the runs of the last hour brought in done or failed, the',
    'median and 95th percentile of the seconds from their completed_at upstream to the write here',
    "(empty: none; a first sync's back-fill counts none). The worker exports each as",
    'tsync_freshness_seconds.',
  ].join('\n'),
  settings: ['format', 'json', 'db', 'lockWait', 'memory', 'pendingMaxAge'],
  async run({ flags, env, stdout, stderr }) {
    const settings = resolveSettings(['db', 'lockWait', 'memory', 'pendingMaxAge'], [], flags, env);
    const json = resolveFormat('format', flags, env) === 'json';
    const now = new Date();
    const pendingSince = new Date(now.getTime() - settings.pendingMaxAge).toISOString();
    const lastHour = new Date(now.getTime() - 3_600_000).toISOString();
    const [kinds, stale, lags] = await withReader(settings.db, readerOptions(settings), async (db) => [
      await kindStatus(db, { pending_since: pendingSince }),
      json
        ? []
        : await stalePendingJobs(db, { pending_since: pendingSince, max_age_ms: settings.pendingMaxAge }),
      await completionLagByKind(db, { since: lastHour }),
    ]);
    const rows = kinds.map((r) => {
      const lag = lags.find((l) => l.kind === r.kind);
      return {
        ...r,
        words: Number(r.words),
        fresh_p50_s: lag ? roundTenth(lag.p50) : null,
        fresh_p95_s: lag ? roundTenth(lag.p95) : null,
      };
    });
    writeRows(stdout, json, rows, (r) => ({
      ...r,
      last_error: r.last_error ?? '',
      fresh_p50_s: r.fresh_p50_s ?? '',
      fresh_p95_s: r.fresh_p95_s ?? '',
    }));
    // The rows carry pending_stale; a program reading them wants nothing else.
    if (json) return 0;
    const duplicates = rows.reduce((n, r) => n + r.duplicate_ids, 0);
    if (duplicates > 0)
      stderr.write(
        `${PROGRAM}: ${duplicates} duplicate job ids in ${settings.db}; run \`${PROGRAM} verify\` for what else broke and the fix\n`,
      );
    for (const line of pendingAdvice(stale, settings.pendingMaxAge)) stderr.write(`${line}\n`);
    return 0;
  },
};

/**
 * A line per kind for pending jobs past --pending-max-age no run has listed since (a `sync --full`
 * re-reads them), and for those a recent run listed still pending (only the service moves them on).
 */
function pendingAdvice(rows: readonly StalePending[], pendingMaxAgeMs: number): string[] {
  const maxAge = formatDurationSetting(pendingMaxAgeMs);
  const lines: string[] = [];
  for (const row of rows) {
    if (row.not_rechecked > 0) {
      lines.push(
        `${row.kind}: ${counted(row.not_rechecked, 'pending job')} older than --pending-max-age (${maxAge}) not re-checked lately; run \`sync --full\` to bring them up to date, or raise --pending-max-age (TSYNC_PENDING_MAX_AGE)`,
      );
    }
    if (row.upstream > 0) {
      lines.push(
        `${row.kind}: ${counted(row.upstream, 'job')} still queued or processing upstream since ${row.upstream_since} (as last listed at ${row.listed_at}); nothing to do here: if they never finish, contact the service`,
      );
    }
  }
  return lines;
}

const roundTenth = (seconds: number) => Math.round(Number(seconds) * 10) / 10;

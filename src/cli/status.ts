/** `transcript-sync status`: what the file holds per kind and how the last run went. */
import { withReadOnlyDatabase } from '../analytics/open-reader.js';
import { resolveSettings } from '../config.js';
import { formatDuration } from '../util/duration.js';
import { jsonLine } from '../util/snake-case.js';
import { type Command, flag, PROGRAM } from './command.js';
import { renderTable } from './table.js';

export interface KindStatus {
  /** pre-recorded, live, or unknown (quarantined records of no known kind; listed when there are some). */
  kind: string;
  watermark: string | null;
  jobs: number;
  /** queued/processing jobs younger than --pending-max-age: re-checked on every run. */
  pending: number;
  /** queued/processing jobs older than --pending-max-age: no longer re-checked. */
  pending_stale: number;
  deleted: number;
  /** Rows of `jobs` beyond one per id: 0 unless something other than the loader wrote the file. */
  duplicate_ids: number;
  /** A BIGINT: a bigint past 2^53. */
  words: number | bigint;
  quarantined: number;
  last_run_at: string | null;
  last_outcome: string | null;
  last_error: string | null;
}

export const command: Command = {
  name: 'status',
  summary: 'show per kind the watermark, pending jobs, last run and row counts',
  usage: 'status [--db PATH] [--pending-max-age DURATION] [--json]',
  description: [
    'pending: queued/processing jobs still re-checked on every run; pending_stale: those older than',
    `--pending-max-age, no longer re-checked (a \`sync --full\` or a larger --pending-max-age brings`,
    'them up to date). quarantined counts every unresolved record, under "unknown" when its kind is',
    'neither pre-recorded nor live.',
  ].join('\n'),
  options: { json: { type: 'boolean', help: 'print JSON on stdout' } },
  settings: ['db', 'lockWait', 'pendingMaxAge'],
  async run({ flags, env, stdout, stderr }) {
    const settings = resolveSettings(['db', 'lockWait', 'pendingMaxAge'], [], flags, env);
    const pendingSince = new Date(Date.now() - settings.pendingMaxAge).toISOString();
    const rows = await withReadOnlyDatabase(settings.db, settings.lockWait, (db) =>
      db.all<KindStatus>(db.query('status-kinds'), { pending_since: pendingSince }),
    );
    if (flag(flags, 'json')) {
      // The rows carry pending_stale; a program reading them wants nothing else.
      stdout.write(jsonLine(rows));
      return 0;
    }
    stdout.write(renderTable(rows.map((r) => ({ ...r, last_error: r.last_error ?? '' }))));
    const duplicates = rows.reduce((n, r) => n + r.duplicate_ids, 0);
    if (duplicates > 0)
      stderr.write(
        `${PROGRAM}: ${duplicates} duplicate job ids in ${settings.db}; run \`${PROGRAM} verify\` for what else broke and the fix\n`,
      );
    const stale = rows.reduce((n, r) => n + r.pending_stale, 0);
    if (stale > 0) {
      stderr.write(
        `${stale} pending job(s) are older than --pending-max-age (${formatDuration(settings.pendingMaxAge)}) and no longer re-checked; run \`sync --full\` or raise --pending-max-age (TSYNC_PENDING_MAX_AGE)\n`,
      );
    }
    return 0;
  },
};

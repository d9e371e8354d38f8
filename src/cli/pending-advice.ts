/**
 * What `status` says of pending jobs past --pending-max-age, which runs no longer re-check. Two
 * cases call for different acts: jobs no run has listed since they went past it (their row may be
 * out of date: a `sync --full` re-reads them), and jobs a recent run listed still queued or
 * processing (the file is right; only the service can move them on). A full run turns the first
 * kind into the second, so its advice ends once followed.
 */
import type { RowSource } from '../analytics/read/reader.js';
import { type StalePendingRow as StalePending, stalePendingJobs } from '../store/index.js';
import { formatDurationSetting } from '../util/duration.js';
import { counted } from '../util/plural.js';

/** Per kind, the stale pending jobs split as above, judged at `now`. */
export function stalePending(db: RowSource, pendingMaxAgeMs: number, now: Date): Promise<StalePending[]> {
  return stalePendingJobs(db, {
    pending_since: new Date(now.getTime() - pendingMaxAgeMs).toISOString(),
    max_age_ms: pendingMaxAgeMs,
  });
}

/** One line per kind and case, empty when no job is past --pending-max-age. */
export function pendingAdvice(rows: readonly StalePending[], pendingMaxAgeMs: number): string[] {
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

/** The end-of-run lines a person reads (stderr) for `sync`, `demo` and `enqueue --wait`. */
import type { PublishResult } from '../analytics/publish.js';
import type { KindSummary, SyncKind, SyncSummary } from '../sync/types.js';
import { formatDuration } from '../util/duration.js';

export function summaryLine(k: KindSummary): string {
  const took = formatDuration(Date.parse(k.finishedAt) - Date.parse(k.startedAt));
  const counts = `${k.inserted} new, ${k.updated} updated, ${k.unchanged} unchanged`;
  const extra = [
    k.deleted ? `${k.deleted} marked deleted` : '',
    k.restored ? `${k.restored} restored` : '',
    k.pendingRechecked ? `${k.pendingRechecked} pending re-checked` : '',
  ].filter(Boolean);
  const tail = extra.length ? `, ${extra.join(', ')}` : '';
  const outcome = k.outcome === 'ok' ? 'ok' : `${k.outcome.toUpperCase()}${k.error ? ` (${k.error})` : ''}`;
  return `${k.kind}: ${outcome}: ${k.jobsFetched} jobs in ${k.pages} pages (${k.requests} requests, ${k.retries} retries): ${counts}${tail}; ${took}`;
}

/** The line of a kind asked for that the run was stopped before. */
function notStartedLine(kind: SyncKind): string {
  return `${kind}: not started (the run was stopped before it)`;
}

/** A run's lines: each kind asked for, then what became of the dataset with --publish. */
export function runLines(summary: SyncSummary): string[] {
  return [
    ...summary.kinds.map(summaryLine),
    ...summary.notStarted.map(notStartedLine),
    ...(summary.published ? [publishLine(summary.published)] : []),
    ...(summary.notPublished
      ? [
          `not published to ${summary.notPublished.dir}: ${summary.notPublished.reason}; the dataset keeps its previous refresh`,
        ]
      : []),
  ];
}

export function quarantineNote(kinds: readonly KindSummary[], db: string): string | undefined {
  const count = kinds.reduce((n, k) => n + k.quarantined, 0);
  if (count === 0) return undefined;
  return `${count} record(s) failed validation and were quarantined (the rest loaded); inspect them with \`transcript-sync quarantine list --db ${db}\``;
}

/** One line saying what the publish after the run wrote, and which kinds in it are stale. */
function publishLine(published: PublishResult): string {
  const mib = (published.bytes / 1_048_576).toFixed(1);
  const stale = published.stale.length
    ? `; ${published.stale.join(' and ')} stale: as of its last successful sync (_manifest.json, kinds)`
    : '';
  return `published to ${published.dir}: ${published.written} partition files written (${mib} MiB), ${published.unchanged} unchanged, ${published.removed} removed${stale}`;
}

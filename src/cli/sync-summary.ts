/** The end-of-run lines a person reads (stderr) for `sync`, `demo` and `enqueue --wait`. */
import type { PublishResult } from '../analytics/publish.js';
import type { KindSummary, SyncKind } from '../sync/types.js';
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
export function notStartedLine(kind: SyncKind): string {
  return `${kind}: not started (the run was stopped before it)`;
}

export function quarantineNote(kinds: readonly KindSummary[], db: string): string | undefined {
  const count = kinds.reduce((n, k) => n + k.quarantined, 0);
  if (count === 0) return undefined;
  return `${count} record(s) failed validation and were quarantined (the rest loaded); inspect them with \`transcript-sync quarantine list --db ${db}\``;
}

/** One line saying what the publish after the run wrote. */
export function publishLine(published: PublishResult): string {
  const mib = (published.bytes / 1_048_576).toFixed(1);
  return `published to ${published.dir}: ${published.written} partition files written (${mib} MiB), ${published.unchanged} unchanged, ${published.removed} removed`;
}

/** The end-of-run lines a person reads (stderr) for `sync`, `demo` and `enqueue --wait`. */
import type { PublishResult } from '../analytics/publish/publish.js';
import type { OutcomeLevel } from '../log.js';
import type { PipelineSummary } from '../pipeline.js';
import type { KindSummary } from '../sync/types.js';
import { formatDuration } from '../util/duration.js';
import { counted } from '../util/plural.js';
import { snakeKeys } from '../util/snake-case.js';

export function summaryLine(k: KindSummary): string {
  const took = formatDuration(Date.parse(k.finishedAt) - Date.parse(k.startedAt));
  const counts = `${k.inserted} new, ${k.updated} updated, ${k.unchanged} unchanged`;
  const extra = [
    k.deleted ? `${k.deleted} marked deleted` : '',
    k.expired ? `${k.expired} expired (past the retention, kept)` : '',
    k.restored ? `${k.restored} restored` : '',
    k.pendingRechecked ? `${k.pendingRechecked} pending re-checked` : '',
  ].filter(Boolean);
  const tail = extra.length ? `, ${extra.join(', ')}` : '';
  const outcome = k.outcome === 'ok' ? 'ok' : `${k.outcome.toUpperCase()}${k.error ? ` (${k.error})` : ''}`;
  const fetched = `${counted(k.jobsFetched, 'job')} in ${counted(k.pages, 'page')} (${counted(k.requests, 'request')}, ${counted(k.retries, 'retry', 'retries')})`;
  return `${k.kind}: ${outcome}: ${fetched}: ${counts}${tail}; ${took}`;
}

/** One line of a run's outcome: its text, the level it is logged at off a terminal, its fields. */
export interface RunLine {
  readonly level: OutcomeLevel;
  readonly text: string;
  readonly fields?: Record<string, unknown>;
}

/** A kind's summary line off a terminal; a failure's one error line is the run's closing line. */
const LEVEL_OF = { ok: 'info', interrupted: 'warn', failed: 'warn' } as const;

/** What an interrupted kind's line of `sync` adds: the run to make next. */
const RESUME = 'what was fetched is committed; run `transcript-sync sync` again to resume from there';

/** A run's lines of `sync`: each kind asked for, then what became of the dataset with --publish. */
export function runLines(summary: PipelineSummary): RunLine[] {
  const lines: RunLine[] = summary.kinds.map((kind) => ({
    level: LEVEL_OF[kind.outcome],
    text: kind.outcome === 'interrupted' ? `${summaryLine(kind)}; ${RESUME}` : summaryLine(kind),
    fields: snakeKeys(kind) as Record<string, unknown>,
  }));
  for (const kind of summary.notStarted) {
    const text = `${kind}: not started (the run stopped before it)`;
    lines.push({ level: 'warn', text, fields: { kind, outcome: 'not started' } });
  }
  const { published, notPublished } = summary;
  if (published) lines.push({ level: 'info', text: publishLine(published), fields: { ...published } });
  if (notPublished) {
    const text = `not published to ${notPublished.dir}: ${notPublished.reason}; the dataset keeps its previous refresh`;
    lines.push({ level: 'warn', text, fields: { ...notPublished } });
  }
  return lines;
}

export function quarantineNote(kinds: readonly KindSummary[], db: string): string | undefined {
  const count = kinds.reduce((n, k) => n + k.quarantined, 0);
  if (count === 0) return undefined;
  const were = count === 1 ? 'was' : 'were';
  return `${counted(count, 'record')} failed validation and ${were} quarantined (the rest loaded); inspect them with \`transcript-sync quarantine list --db ${db}\``;
}

/** One line saying what the publish after the run wrote, and which kinds in it are stale. */
function publishLine(published: PublishResult): string {
  const mib = (published.bytes / 1_048_576).toFixed(1);
  const stale = published.stale.length
    ? `; ${published.stale.join(' and ')} stale: as of its last successful sync (_manifest.json, kinds)`
    : '';
  return `published to ${published.dir}: ${published.written} partition files written (${mib} MiB), ${published.unchanged} unchanged, ${published.removed} removed${stale}`;
}

/**
 * The closing error line of a run some kind of which failed (what was committed stays); undefined
 * when none failed. `next` is what resumes: the next run, or the next demo.
 */
export function failedKindsLine(kinds: readonly KindSummary[], next: 'run' | 'demo'): string | undefined {
  const failed = kinds.filter((k) => k.outcome === 'failed').map((k) => k.kind);
  if (failed.length === 0) return undefined;
  return `transcript-sync: the sync of ${failed.join(' and ')} failed (reason above); what was committed stays, and the next ${next} resumes from it`;
}

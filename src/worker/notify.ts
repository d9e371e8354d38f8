/**
 * `--notify URL` (worker and sync): a JSON POST when a kind's runs start failing (`run_failed`)
 * and when they succeed again (`run_recovered`), not on every failed attempt: an operator's
 * channel gets one message per change, like the Redis outage lines in the log. The body carries
 * what failed and why, never the API key (scrubbed from the text as a second line of defence).
 * A notification that cannot be delivered within 5 s is logged and dropped; it never fails a run.
 */
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { toError } from '../errors.js';
import type { JobKind } from '../kinds.js';
import type { Logger } from '../log.js';
import { writeJson } from '../util/json-writer.js';

const POST_TIMEOUT_MS = 5_000;

export interface RunEnd {
  readonly kind: JobKind;
  readonly mode: string;
  readonly outcome: 'ok' | 'failed' | 'interrupted';
  readonly runId?: string | null;
  readonly error?: string | null;
  /** false when no retry can fix the failure. */
  readonly retryable?: boolean | null;
}

export interface NotifierOptions {
  readonly url: string;
  /** Only to scrub it from anything sent. */
  readonly apiKey: string;
  readonly command: 'sync' | 'worker';
  /** The database file as given; messages name it as an absolute path. */
  readonly db: string;
  readonly logger: Logger;
  /** How the kinds' last runs ended before this process started (sync_runs), if known. */
  readonly previous?: ReadonlyMap<JobKind, 'ok' | 'failed'>;
}

export class Notifier {
  private readonly last: Map<JobKind, 'ok' | 'failed'>;

  constructor(private readonly options: NotifierOptions) {
    this.last = new Map(options.previous ?? []);
  }

  /** Posts when the kind's state changes; resolves once delivered or given up. */
  async runEnded(run: RunEnd): Promise<void> {
    if (run.outcome === 'interrupted') return;
    const before = this.last.get(run.kind);
    this.last.set(run.kind, run.outcome);
    const event =
      run.outcome === 'failed' && before !== 'failed'
        ? 'run_failed'
        : run.outcome === 'ok' && before === 'failed'
          ? 'run_recovered'
          : undefined;
    if (event) await this.post(event, run);
  }

  private async post(event: 'run_failed' | 'run_recovered', run: RunEnd): Promise<void> {
    const { url, apiKey, logger } = this.options;
    const body = writeJson({
      event,
      kind: run.kind,
      mode: run.mode,
      outcome: run.outcome,
      run_id: run.runId ?? null,
      error: run.outcome === 'failed' ? (run.error ?? null) : null,
      retryable: run.outcome === 'failed' ? (run.retryable ?? null) : null,
      at: new Date().toISOString(),
      host: hostname(),
      command: this.options.command,
      db: resolve(this.options.db),
    }).replaceAll(apiKey, '[redacted]');
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'transcript-sync' },
        body,
        signal: AbortSignal.timeout(POST_TIMEOUT_MS),
      });
      await response.body?.cancel();
      if (!response.ok)
        logger.warn(
          { notify_event: event, status: response.status },
          'the --notify URL refused the notification',
        );
      else logger.info({ notify_event: event, kind: run.kind }, 'notification sent');
    } catch (error) {
      logger.warn(
        { notify_event: event, reason: toError(error).message },
        'could not deliver the notification to --notify',
      );
    }
  }
}

/**
 * The service's account webhooks, as the simulator sends them (`simulate --webhook-url URL`): a
 * POST of `{"event": "...", "payload": {"id": "<job id>"}}` for each job a growing account creates
 * and each one that ends, named as the service names them (EVENTS), unsigned as the service's are.
 * A growing account moves when asked anything, so the sender ticks it every TICK_MS. Past
 * MAX_WAITING unsent events the oldest are dropped; a failed POST is counted, never retried.
 */
import type { JobChange, JobChanges } from './growth.js';
import type { JobKind, JobStatus } from './types.js';

/** ms between ticks of a growing account's clock. */
const TICK_MS = 50;
const CONCURRENCY = 4;
const MAX_WAITING = 10_000;
/** ms one POST may take. */
const POST_TIMEOUT_MS = 5_000;

export type WebhookSender = ReturnType<typeof startWebhookSender>;

/** The event the service sends when a job of each kind is created or reaches a status; none for others. */
const EVENTS: Readonly<Record<JobKind, Partial<Record<JobStatus | 'created', string>>>> = {
  'pre-recorded': {
    created: 'transcription.created',
    done: 'transcription.success',
    error: 'transcription.error',
  },
  live: { created: 'live.start_session', done: 'live.end_session', error: 'live.end_session' },
};

/**
 * Posts the events of a growing account's `changes` to `url`, ticking its clock with `tick`
 * (data.ts); `onSent` is told of each POST answered (its HTTP status) or failed (0).
 */
export function startWebhookSender(
  changes: JobChanges,
  tick: () => void,
  url: string,
  onSent?: (event: string, status: number) => void,
) {
  const waiting: { event: string; id: string }[] = [];
  let inFlight = 0;
  let sent = 0;
  let failed = 0;
  let closed = false;
  const controller = new AbortController();

  const pump = (): void => {
    while (!closed && inFlight < CONCURRENCY && waiting.length > 0) {
      const next = waiting.shift()!;
      inFlight += 1;
      post(url, next.event, next.id, controller.signal)
        .then((status) => {
          if (status === 0) failed += 1;
          else sent += 1;
          onSent?.(next.event, status);
        })
        .finally(() => {
          inFlight -= 1;
          pump();
        });
    }
  };

  const listener = ({ id, kind, status }: JobChange): void => {
    const event = EVENTS[kind][status === 'queued' ? 'created' : status];
    if (event === undefined || closed) return;
    waiting.push({ event, id });
    if (waiting.length > MAX_WAITING) {
      waiting.shift();
      failed += 1;
    }
    pump();
  };
  changes.on('change', listener);
  const ticker = setInterval(tick, TICK_MS).unref();

  return {
    /** Events posted, answered with any status. */
    sent: (): number => sent,
    /** Events not delivered: the POST failed, or the event was dropped unsent. */
    failed: (): number => failed,
    close(): void {
      closed = true;
      clearInterval(ticker);
      changes.off('change', listener);
      controller.abort();
      waiting.length = 0;
    },
  };
}

/** The POST's status, or 0 when it failed. */
async function post(url: string, event: string, id: string, signal: AbortSignal): Promise<number> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event, payload: { id } }),
      signal: AbortSignal.any([signal, AbortSignal.timeout(POST_TIMEOUT_MS)]),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

/**
 * The webhook endpoint (`--webhook-port`, its own port, so the metrics port can stay internal):
 * `POST /webhook/<secret>` with the service's `{"event": "...", "payload": {"id": "..."}}`. The
 * service signs nothing, so the secret in the path is what tells its requests from anyone's; a
 * reverse proxy with TLS in front keeps it off the wire.
 *
 * Answers, in the order they are decided:
 * - 404 `not found` for any other path, the secret wrong or missing: the same answer, no hint;
 * - 405 for a method other than POST on the right path;
 * - 429 past `ratePerSecond` requests from one source address (a burst of as many);
 * - 413 for a body over MAX_BODY_BYTES, cut off there;
 * - none for a body that never arrives whole (the client left, the worker stops, or node answered
 *   408 past REQUEST_TIMEOUT_MS): the request is dropped, a line at debug;
 * - 400 for a body that is not a JSON object with a text `event`;
 * - 204 for an event of no kind this worker syncs (counted as `unknown_event` or `other_kind`);
 * - 202 once the run of its kind is queued or an already queued one takes it (./queue.ts):
 *   a Redis round trip, never any sync work;
 * - 503 at once while Redis is known to be down (nothing is queued, then or once it is back; the
 *   outage has its own line), or when Redis does not take it within ENQUEUE_TIMEOUT_MS: a warn
 *   line without a stack, at debug if Redis went down meanwhile.
 * The path (it holds the secret) is never logged, counted or echoed.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Queue } from 'bullmq';
import { z } from 'zod';
import { toError } from '../errors.js';
import type { JobKind } from '../kinds.js';
import type { Logger } from '../log.js';
import { within } from '../util/within.js';
import { type Endpoint, pathOf, send, serve } from './http-server.js';
import type { WorkerMetrics } from './metrics.js';
import { enqueueEventRun, type WebhookAnswer } from './queue.js';

/** Bytes of the largest body read; the service's events carry an event name and an id. */
export const MAX_BODY_BYTES = 64 * 1024;
/** ms the enqueue may take before the answer is 503 (Redis down). */
const ENQUEUE_TIMEOUT_MS = 2_000;
/** ms a request may take to arrive, headers and body. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Source addresses remembered by the rate limiter before full buckets are forgotten. */
const MAX_ADDRESSES = 10_000;

/** The webhook endpoint's settings (--webhook-host, --webhook-port, --webhook-rate). */
export interface WebhookSettings {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** TSYNC_WEBHOOK_SECRET, checked by src/cli/commands/worker.ts. */
  readonly secret: string;
  /** Requests per second (and burst) one source address may send. */
  readonly ratePerSecond: number;
}

/**
 * The endpoint of `webhook`, queueing runs in the queue `queue()` gives and counting its answers in
 * `metrics`; an event of a kind not in `kinds` is answered 204. Bound before the worker locks the
 * database, it answers 503 until the queue exists, as while `redisUp` says Redis is known down.
 */
export async function startWebhooks(
  webhook: WebhookSettings,
  kinds: readonly JobKind[],
  queue: () => Queue | undefined,
  metrics: WorkerMetrics,
  logger: Logger,
  redisUp: () => boolean,
): Promise<Endpoint> {
  /** sha256 of the one path that is answered. */
  const path = digest(`/webhook/${webhook.secret}`);
  const limiter = new RateLimiter(webhook.ratePerSecond);

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const answer = (status: number, counted: WebhookAnswer, body = '') => {
      metrics.recordWebhook(counted);
      send(response, status, 'text/plain', body);
    };
    const asked = pathOf(request);
    if (asked === undefined || !timingSafeEqual(digest(asked), path))
      return drain(request, response, () => answer(404, 'not_found', 'not found\n'));
    if (request.method !== 'POST') {
      response.setHeader('allow', 'POST');
      return drain(request, response, () => send(response, 405, 'text/plain', 'only POST\n'));
    }
    if (!limiter.take(request.socket.remoteAddress ?? '')) {
      response.setHeader('retry-after', '1');
      return drain(request, response, () => answer(429, 'rate_limited', 'too many requests\n'));
    }
    const body = await readBody(request).catch(() => null);
    if (body === null) {
      logger.debug('a webhook request ended before its body arrived');
      request.destroy();
      return;
    }
    if (body === undefined) {
      cutOff(request, response);
      return answer(413, 'too_large', `body over ${MAX_BODY_BYTES} bytes\n`);
    }
    const event = eventOf(body);
    if (event === undefined) return answer(400, 'malformed', 'expected {"event": "...", "payload": {...}}\n');
    const kind = eventKind(event);
    if (kind === undefined) return answer(204, 'unknown_event');
    if (!kinds.includes(kind)) return answer(204, 'other_kind');
    // Known down, Redis is not asked: the client would keep the request until Redis is back, and
    // run it then, after its 503 said the event was not taken.
    const runs = queue();
    if (runs === undefined || !redisUp()) {
      response.setHeader('retry-after', '5');
      return answer(503, 'unavailable', 'the queue is unavailable; try again\n');
    }
    let failure: unknown = new Error(`no answer from Redis within ${ENQUEUE_TIMEOUT_MS} ms`);
    const queued = enqueueEventRun(runs, kind).catch((error: unknown) => {
      failure = error;
      return undefined;
    });
    const run = await within(queued, ENQUEUE_TIMEOUT_MS, undefined);
    if (run === undefined) {
      const fields = { kind, reason: toError(failure).message };
      if (redisUp()) logger.warn(fields, 'could not queue the run a webhook asked for');
      else logger.debug(fields, 'could not queue the run a webhook asked for: Redis is down');
      response.setHeader('retry-after', '5');
      return answer(503, 'unavailable', 'the queue is unavailable; try again\n');
    }
    answer(202, run);
  };

  // An event is a name and an id: a request still arriving after this is dropped, so a slow sender holds nothing long.
  const at = { host: webhook.host, port: webhook.port, logger, requestTimeoutMs: REQUEST_TIMEOUT_MS };
  const endpoint = await serve(handle, at, 'webhook');
  logger.info({ url: `http://${webhook.host}:${endpoint.port}` }, 'serving POST /webhook/<secret>');
  return endpoint;
}

/** The kind an event names: `transcription.*` pre-recorded, `live.*` live; undefined for any other. */
function eventKind(event: string): JobKind | undefined {
  if (event.startsWith('transcription.')) return 'pre-recorded';
  if (event.startsWith('live.')) return 'live';
  return undefined;
}

/** A webhook's body: a JSON object with a text `event`, whatever else it holds. */
const eventBody = z.object({ event: z.string().min(1) });

/** The event of a body `{"event": "<text>", ...}`; undefined when it is not one. */
function eventOf(body: Buffer): string | undefined {
  try {
    return eventBody.safeParse(JSON.parse(body.toString('utf8'))).data?.event;
  } catch {
    return undefined;
  }
}

/** The body, or undefined past MAX_BODY_BYTES (declared or read). */
function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        request.off('data', onData);
        request.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks)));
    request.once('error', reject);
  });
}

/**
 * Answers after the body is read (so the connection can be reused), or past MAX_BODY_BYTES at once
 * with the same answer, the rest of the body unread and the connection closed after it.
 */
function drain(request: IncomingMessage, response: ServerResponse, then: () => void): void {
  readBody(request).then(
    (body) => {
      if (body === undefined) cutOff(request, response);
      then();
    },
    () => request.destroy(),
  );
}

/** Past MAX_BODY_BYTES: the rest of the body is not read, and the connection closes after the answer. */
function cutOff(request: IncomingMessage, response: ServerResponse): void {
  response.setHeader('connection', 'close');
  response.on('finish', () => request.destroy());
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * A token bucket per source address: `rate` tokens a second, at most `rate` held, and at least one
 * (a rate below 1 a second allows one request every 1/rate seconds).
 */
class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly burst: number;
  constructor(private readonly rate: number) {
    this.burst = Math.max(1, rate);
  }

  take(address: string): boolean {
    const now = Date.now();
    if (this.buckets.size > MAX_ADDRESSES) this.forgetFull(now);
    const bucket = this.buckets.get(address) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1_000) * this.rate);
    bucket.at = now;
    this.buckets.set(address, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  private forgetFull(now: number): void {
    for (const [address, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1_000) * this.rate >= this.burst) this.buckets.delete(address);
    }
  }
}

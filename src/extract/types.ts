/**
 * The listing client's public shapes: which lists exist, the filters a caller may ask for, and how
 * the client is tuned (a page: listing.ts). Kinds, statuses and list names come from
 * src/kinds.ts, whose `as const` lists the query encoder checks values against at run time.
 */

import type { JobKind, JobStatus } from '../kinds.js';
import type { Logger } from '../log.js';
import type { ScannerClass } from './json-scan.js';

export interface ListParams {
  /** Index of the first item; default 0. */
  offset?: number;
  /** Items asked for; default 20 (the spec's default). The service may serve fewer. */
  limit?: number;
  /** YYYY-MM-DD */
  date?: string;
  /** A string must be an ISO 8601 instant; sent as `toISOString()`. */
  beforeDate?: Date | string;
  afterDate?: Date | string;
  status?: readonly JobStatus[];
  /** Only on 'transcription'; a ConfigError elsewhere. */
  kind?: readonly JobKind[];
}

export interface ClientOptions {
  /** e.g. https://api.example.com; a path prefix is kept (`https://host/proxy` → /proxy/v2/...). */
  baseUrl: string;
  apiKey: string;
  /** Requests per second across all concurrent calls of one client; default DEFAULT_RATE_LIMIT (20). */
  rateLimit?: number;
  /**
   * Requests that may go out at once before the rate spaces them; default 1 (evenly spaced). The
   * sync engine passes its concurrency, so parallel slices start together; the rate still holds
   * over time (a token bucket of `burst` tokens).
   */
  burst?: number;
  /** Attempts per request, the first included; default 6. */
  maxAttempts?: number;
  /** First backoff cap in ms; default 250. Doubles per retry, full jitter. */
  retryBaseMs?: number;
  /** Cap of one backoff in ms; default 30_000. */
  retryMaxMs?: number;
  /** Retry-After is honoured up to this many ms; default 60_000. */
  retryAfterCapMs?: number;
  /** ms; default 10_000. */
  connectTimeoutMs?: number;
  /** ms until the response headers arrive; default 30_000. */
  headersTimeoutMs?: number;
  /** ms of silence allowed between body chunks; default 30_000. undici checks it on a ~1 s clock. */
  bodyTimeoutMs?: number;
  /**
   * Requests in flight at once, at most; default 8. The throttle (throttle.ts) lowers it after
   * repeated 429s and raises it back. The sync engine passes its concurrency.
   */
  concurrency?: number;
  /** Keep-alive pool size; default 8, never fewer than `concurrency`. */
  connections?: number;
  logger?: Logger;
  /**
   * What reads each item of a page in the body's one scan (json-scan.ts); default HeadScanner: the
   * item's span and heads. A later stage may pass a ListScanner of its own that reads more of each
   * item in the same pass (the sync passes src/normalize's).
   */
  scanner?: ScannerClass;
  /** Before each retry's wait: `attempt` is the attempt that failed (1 = the first request). */
  onRetry?: (info: { attempt: number; delayMs: number; error: Error }) => void;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /**
   * Most body bytes to read (default and ceiling: MAX_BODY_BYTES). A longer body is not read to its
   * end: the request fails with ResponseTooLargeError, so no answer can outgrow memory or V8's
   * longest string.
   */
  maxBytes?: number;
}

export interface ClientStats {
  /** HTTP requests sent, retries included. */
  requests: number;
  /** Attempts after a failed one. */
  retries: number;
  /** Pauses of every request begun on the service's word (a 429 or 503 with Retry-After). */
  pauses: number;
  /** Response body bytes received. */
  bytes: number;
}

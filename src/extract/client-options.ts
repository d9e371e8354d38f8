/**
 * The listing client's public shapes (the filters of a request, how the client is tuned) and its
 * options checked once, where they enter: the base URL, the key, numbers that must be whole or
 * non-negative, and the retry policy they make (./retry-policy.ts).
 */
import { ConfigError } from '../errors.js';
import type { JobKind, JobStatus } from '../kinds.js';
import type { Logger } from '../log.js';
import type { ScannerClass } from './json-scan.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.js';

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
  /** Requests that may go out at once before the rate spaces them (a token bucket); default 1. */
  burst?: number;
  /** Attempts per request, the first included; default 6. */
  maxAttempts?: number;
  /** First backoff cap in ms; default 250. Doubles per retry, full jitter. */
  retryBaseMs?: number;
  /** Retry-After is honoured up to this many ms; default 60_000. */
  retryAfterCapMs?: number;
  /** ms of silence allowed between body chunks; default 30_000. undici checks it on a coarse clock. */
  bodyTimeoutMs?: number;
  /**
   * The slowest a body may arrive once it has had `afterMs` since its headers: on average at least
   * `bytesPerSecond`, else the attempt fails (retryable), so a trickle never holds a run; default
   * SLOW_BODY.
   */
  slowBody?: SlowBody;
  /** Requests in flight at most; default 8. The throttle (throttle.ts) lowers it after repeated 429s. */
  concurrency?: number;
  logger?: Logger;
  /** What reads each item in the body's one scan (json-scan.ts); default HeadScanner (span and heads). */
  scanner?: ScannerClass;
  /** Before each retry's wait: `attempt` is the attempt that failed (1 = the first request). */
  onRetry?: (info: { attempt: number; delayMs: number; error: Error }) => void;
}

export interface SlowBody {
  readonly bytesPerSecond: number;
  /** ms */
  readonly afterMs: number;
}

/** The slowest a page's body may arrive before its attempt is given up (docs/how-a-sync-works.md#failures). */
export const SLOW_BODY: SlowBody = { bytesPerSecond: 16 * 1024, afterMs: 60_000 };

export interface RequestOptions {
  signal?: AbortSignal;
  /** Most body bytes to read (default and ceiling: MAX_BODY_BYTES); past it, ResponseTooLargeError. */
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

export function positive(
  setting: string,
  value: number | undefined,
  fallback: number,
  integer = false,
): number {
  const result = value ?? fallback;
  const ok = Number.isFinite(result) && result >= 0 && (!integer || Number.isInteger(result));
  if (!ok)
    throw new ConfigError(setting, `must be a ${integer ? 'whole ' : ''}number >= 0 (got ${String(value)})`);
  return result;
}

export function parseBaseUrl(text: string): URL {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (!url || !/^https?:$/.test(url.protocol)) {
    throw new ConfigError('TSYNC_BASE_URL', `must be an http:// or https:// URL (got "${text}")`);
  }
  return url;
}

/**
 * The key as a header value: control characters, or one beyond Latin-1 (a curly quote or a
 * zero-width space pasted with it), would make undici refuse each request later, less clearly.
 * The refusal never shows the key, nor any character of it.
 */
export function checkApiKey(apiKey: string): void {
  const control = [...apiKey].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);
  if (apiKey.trim() === '' || control) {
    throw new ConfigError('TSYNC_API_KEY', 'is empty or holds control characters');
  }
  if ([...apiKey].some((char) => (char.codePointAt(0) ?? 0) > 0xff)) {
    throw new ConfigError(
      'TSYNC_API_KEY',
      'holds a character a header cannot carry (a curly quote or an invisible space pasted with it?); copy the key again',
    );
  }
}

/** The retry policy of the options, the defaults filling what they leave out. */
export function retryPolicyOf(options: ClientOptions): RetryPolicy {
  const defaults = DEFAULT_RETRY_POLICY;
  return Object.freeze({
    ...defaults,
    maxAttempts: Math.max(1, positive('maxAttempts', options.maxAttempts, defaults.maxAttempts, true)),
    baseMs: positive('retryBaseMs', options.retryBaseMs, defaults.baseMs),
    retryAfterCapMs: positive('retryAfterCapMs', options.retryAfterCapMs, defaults.retryAfterCapMs),
  });
}

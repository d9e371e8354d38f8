/**
 * When a failed request is tried again, and after how long, as data: which HTTP statuses and which
 * socket error codes are transient, how the backoff grows, and how `Retry-After` is read. The
 * client consults this table; no other file decides what retries.
 */

/** Statuses worth another try: a request timeout, rate limiting and the gateway/overload family. */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/**
 * Transport failures worth another try (node's socket errors and undici's codes). ENOTFOUND is
 * left out on purpose: an unknown host is nearly always a mistyped base URL, and six tries would
 * only delay saying so; EAI_AGAIN is the transient DNS failure.
 */
export const RETRY_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENETDOWN',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

export interface RetryPolicy {
  /** Attempts per request, the first included. */
  readonly maxAttempts: number;
  /** Cap of the first backoff, ms; each retry doubles it. */
  readonly baseMs: number;
  /** Cap of any one backoff, ms. */
  readonly maxMs: number;
  /** A Retry-After longer than this is cut to it, ms. */
  readonly retryAfterCapMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maxAttempts: 6,
  baseMs: 250,
  maxMs: 30_000,
  retryAfterCapMs: 60_000,
});

/**
 * Exponential backoff with full jitter: uniform in [0, min(maxMs, baseMs * 2^(retry-1))], so
 * clients that failed together do not come back together. `retry` counts from 1.
 */
export function backoffMs(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, retry - 1));
  return Math.round(random() * ceiling);
}

/**
 * A Retry-After header in ms: delta-seconds (`120`) or an HTTP date. undefined when absent or
 * unreadable; a date in the past is 0. Not capped here (see `retryDelayMs`).
 */
export function parseRetryAfter(
  header: string | string[] | undefined,
  now: number = Date.now(),
): number | undefined {
  const text = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1_000);
  // An HTTP date always names a weekday or month in letters; this keeps bare garbage out of Date.parse.
  const at = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** What an error says about when to come back: the service's Retry-After, when it sent one. */
function retryAfterOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('retryAfterMs' in error)) return undefined;
  const value = error.retryAfterMs;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The wait before retry number `retry` (from 1): Retry-After wins over the backoff, up to its cap. */
export function retryDelayMs(
  policy: RetryPolicy,
  error: unknown,
  retry: number,
  random?: () => number,
): number {
  const retryAfter = retryAfterOf(error);
  // A Retry-After of 0, or a date already past (a clock behind ours), asks for no wait: the backoff
  // still spaces the retries.
  if (retryAfter !== undefined && retryAfter > 0) return Math.min(retryAfter, policy.retryAfterCapMs);
  return backoffMs(policy, retry, random);
}

/**
 * Whether an answer speaks for the whole account (a 429, a 503 with Retry-After) rather than one
 * request (undefined), and how long every request is then to wait, ms: the Retry-After up to its cap.
 */
export function accountSignal(
  policy: RetryPolicy,
  status: number,
  error: unknown,
): { readonly pauseMs: number } | undefined {
  const retryAfter = retryAfterOf(error);
  if (status !== 429 && !(status === 503 && retryAfter !== undefined)) return undefined;
  return { pauseMs: Math.min(retryAfter ?? 0, policy.retryAfterCapMs) };
}

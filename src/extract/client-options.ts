/**
 * The listing client's options checked once, where they enter: the base URL, the key, numbers that
 * must be whole or non-negative, and the retry policy they make (./retry-policy.ts).
 */
import { ConfigError } from '../errors.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.js';
import type { ClientOptions } from './types.js';

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

function hasControlCharacter(text: string): boolean {
  return [...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);
}

export function parseBaseUrl(text: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol)) {
    throw new ConfigError('TSYNC_BASE_URL', `must be an http:// or https:// URL (got "${text}")`);
  }
  return url;
}

/** The key as a header value: control characters would make undici reject it later, less clearly. */
export function checkApiKey(apiKey: string): void {
  if (apiKey.trim() === '' || hasControlCharacter(apiKey)) {
    throw new ConfigError('TSYNC_API_KEY', 'is empty or holds control characters');
  }
}

/** The retry policy of the options, the defaults filling what they leave out. */
export function retryPolicyOf(options: ClientOptions): RetryPolicy {
  return Object.freeze({
    maxAttempts: Math.max(
      1,
      positive('maxAttempts', options.maxAttempts, DEFAULT_RETRY_POLICY.maxAttempts, true),
    ),
    baseMs: positive('retryBaseMs', options.retryBaseMs, DEFAULT_RETRY_POLICY.baseMs),
    maxMs: positive('retryMaxMs', options.retryMaxMs, DEFAULT_RETRY_POLICY.maxMs),
    retryAfterCapMs: positive(
      'retryAfterCapMs',
      options.retryAfterCapMs,
      DEFAULT_RETRY_POLICY.retryAfterCapMs,
    ),
  });
}

import { describe, expect, it } from 'vitest';
import { ProtocolError, RateLimitedError, UpstreamError } from '../../../src/errors.js';
import { parseNextLink } from '../../../src/extract/listing.js';
import {
  accountSignal,
  backoffMs,
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  retryDelayMs,
} from '../../../src/extract/retry-policy.js';

describe('reading the next link', () => {
  it('takes offset and limit and ignores path, origin and other parameters', () => {
    expect(
      parseNextLink('https://elsewhere.example/v2/transcription?status=done&offset=40&limit=20'),
    ).toEqual({
      offset: 40,
      limit: 20,
    });
  });

  it('accepts links wrapped in angle brackets and relative links', () => {
    expect(parseNextLink('<https://api.example.com/v2/transcription?offset=2&limit=2>')).toEqual({
      offset: 2,
      limit: 2,
    });
    expect(parseNextLink('/v2/transcription?offset=5')).toEqual({ offset: 5, limit: undefined });
  });

  it('says there is no next page for null', () => {
    expect(parseNextLink(null)).toBeNull();
  });

  for (const link of [
    'https://x/v2/transcription?limit=5',
    'https://x/?offset=-1',
    'https://x/?offset=ten',
    'https://x/?offset=1&limit=0',
    'http://[::1',
  ]) {
    it(`fails with a non-retryable ProtocolError on ${link}`, () => {
      let caught: unknown;
      try {
        parseNextLink(link);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ProtocolError);
      expect((caught as ProtocolError).retryable).toBe(false);
    });
  }
});

describe('retry timing', () => {
  const policy = { ...DEFAULT_RETRY_POLICY, baseMs: 100, maxMs: 1_000, retryAfterCapMs: 5_000 };

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2024-05-01T12:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter('Wed, 01 May 2024 12:00:07 GMT', now)).toBe(7_000);
    expect(parseRetryAfter('Wed, 01 May 2024 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('grows the backoff ceiling exponentially up to the cap, with full jitter', () => {
    expect([1, 2, 3, 4, 5].map((retry) => backoffMs(policy, retry, () => 1))).toEqual([
      100, 200, 400, 800, 1_000,
    ]);
    expect(backoffMs(policy, 3, () => 0)).toBe(0);
  });

  it('lets Retry-After win over the backoff, up to its cap; one that asks for no wait leaves the backoff', () => {
    expect(retryDelayMs(policy, new RateLimitedError({ retryAfterMs: 2_000 }), 1, () => 1)).toBe(2_000);
    expect(retryDelayMs(policy, new RateLimitedError({ retryAfterMs: 0 }), 5, () => 1)).toBe(
      backoffMs(policy, 5, () => 1),
    );
    expect(retryDelayMs(policy, new RateLimitedError({ retryAfterMs: 600_000 }), 1)).toBe(5_000);
    expect(
      retryDelayMs(
        policy,
        new UpstreamError('503', { retryable: true, status: 503, retryAfterMs: 1_500 }),
        1,
      ),
    ).toBe(1_500);
    expect(retryDelayMs(policy, new UpstreamError('502', { retryable: true, status: 502 }), 2, () => 1)).toBe(
      200,
    );
  });

  it('pauses every request on a 429 or a 503 with Retry-After, up to its cap; other answers are one request’s', () => {
    const error = (status: number, retryAfterMs?: number) =>
      status === 429
        ? new RateLimitedError({ retryAfterMs })
        : new UpstreamError(String(status), {
            retryable: true,
            status,
            ...(retryAfterMs ? { retryAfterMs } : {}),
          });
    expect(accountSignal(policy, 429, error(429, 1_000))).toEqual({ pauseMs: 1_000 });
    expect(accountSignal(policy, 429, error(429, 600_000))).toEqual({ pauseMs: 5_000 });
    expect(accountSignal(policy, 429, error(429))).toEqual({ pauseMs: 0 });
    expect(accountSignal(policy, 503, error(503, 2_000))).toEqual({ pauseMs: 2_000 });
    expect(accountSignal(policy, 503, error(503))).toBeUndefined();
    expect(accountSignal(policy, 502, error(502, 2_000))).toBeUndefined();
    expect(accountSignal(policy, 500, error(500))).toBeUndefined();
  });
});

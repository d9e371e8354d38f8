/**
 * Reads the position out of an envelope's `next` link, and nothing else.
 *
 * `next` is not trusted: on every list it points at /v2/transcription and carries only status,
 * offset and limit, so following it would drop the caller's path and filters, and it could name
 * another host. The walker keeps its own URL and takes only `offset` (and `limit`, when present).
 * Links may arrive wrapped in `<...>` (seen in a real sample) and may be relative.
 */
import { ProtocolError } from '../errors.js';
import type { NextLink } from './types.js';

// Any absolute base: only the query is read, so the origin used to resolve a relative link is moot.
const RESOLVE_BASE = 'http://next.invalid/';

function integerParam(query: URLSearchParams, name: string, min: number): number | undefined {
  const text = query.get(name);
  if (text === null) return undefined;
  const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  return Number.isSafeInteger(value) && value >= min ? value : Number.NaN;
}

function unparsable(reason: string): ProtocolError {
  // The link itself is not quoted: it is the service's text and could be arbitrarily long.
  return new ProtocolError(`the service's next link ${reason}`, {
    retryable: false,
    hint: 'the service broke its paging contract; report it upstream',
  });
}

/** null for no next page; a ProtocolError (not retryable) when the link cannot be read. */
export function parseNextLink(next: string | null): NextLink | null {
  if (next === null) return null;
  const text = next
    .trim()
    .replace(/^<(.*)>$/s, '$1')
    .trim();
  let url: URL;
  try {
    url = new URL(text, RESOLVE_BASE);
  } catch {
    throw unparsable('is not a URL');
  }
  const offset = integerParam(url.searchParams, 'offset', 0);
  const limit = integerParam(url.searchParams, 'limit', 1);
  if (offset === undefined) throw unparsable('has no offset');
  if (Number.isNaN(offset)) throw unparsable('has an offset that is not an integer >= 0');
  if (limit !== undefined && Number.isNaN(limit)) throw unparsable('has a limit that is not an integer >= 1');
  return { offset, limit };
}

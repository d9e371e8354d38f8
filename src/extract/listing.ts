/**
 * A page of a list, and the listing service as the sync reads it (`Listing`: ListingClient over
 * HTTP, or test/helpers/listing-fake.ts in memory). A 2xx body is read as a list envelope without
 * parsing its records (readPage, pure, so the client runs it inside its retry loop).
 *
 * `next` is not trusted: on every list it points at /v2/transcription and carries only status,
 * offset and limit, and it could name another host. The walk keeps its own URL and takes only
 * `offset` (and `limit`, when present). Links may arrive wrapped in `<...>` and may be relative.
 */
import { isUtf8 } from 'node:buffer';
import { z } from 'zod';
import { ProtocolError } from '../errors.js';
import type { ListName } from '../kinds.js';
import type { ClientStats, ListParams, RequestOptions } from './client-options.js';
import { type ItemSpan, JsonSyntaxError, type ScannerClass, scanListBody } from './json-scan.js';

interface NextLink {
  readonly offset: number;
  /** The limit `next` carries, when it carries one. */
  readonly limit: number | undefined;
}

/** A page as received: the body's bytes and what one scan of them found. */
export interface Page {
  readonly list: ListName;
  /** The offset asked for. */
  readonly offset: number;
  /** The limit asked for. */
  readonly limit: number;
  /** The body as UTF-8 (as received; invalid UTF-8 decoded, U+FFFD for bad bytes): each record's text is a span of it. */
  readonly body: Buffer;
  /** Each item's span and heads, as the client's scanner read them (it may say more); not validated. */
  readonly items: readonly ItemSpan[];
  /** Each item's `id` when it is a string, in order, unreadable ones included: the walk's anchors. */
  readonly ids: readonly (string | undefined)[];
  /** The first item's created_at, when readable: a slice boundary. */
  readonly firstCreatedAt: Date | undefined;
  /** Only what `next` says about position; its path, origin and filters are never used. */
  readonly next: NextLink | null;
  /** Body size in bytes, as received. */
  readonly bytes: number;
}

export interface Listing {
  /** One page; a body past `options.maxBytes` fails with ResponseTooLargeError. */
  getPage(list: ListName, params: ListParams, options?: RequestOptions): Promise<Page>;
  /** Running totals since the listing was made; a kind's summary reports the difference. */
  readonly stats: Readonly<Pick<ClientStats, 'requests' | 'retries' | 'pauses'>>;
  close(): Promise<void>;
}

/** A page from what was read of it: its ids and first instant taken from the items' heads. */
export function pageOf(read: Omit<Page, 'ids' | 'firstCreatedAt'>): Page {
  const created = read.items[0]?.heads.created_at;
  const instant = created === undefined ? Number.NaN : Date.parse(created);
  return Object.freeze({
    ...read,
    ids: read.items.map((item) => item.heads.id),
    firstCreatedAt: Number.isNaN(instant) ? undefined : new Date(instant),
  });
}

/** Why a 2xx body is no page: `detail`, the first offending field of the envelope. */
export type BodyProblem =
  | { readonly problem: 'not-json'; readonly message: string }
  | { readonly problem: 'not-envelope'; readonly detail: string };

/**
 * `received`, the answer to a request of page `asked`, read as a list envelope whose items
 * `Scanner` reads; an unreadable `next` throws a ProtocolError (not retryable).
 */
export function readPage(
  asked: Pick<Page, 'list' | 'offset' | 'limit'>,
  received: Buffer,
  Scanner: ScannerClass,
): Page | BodyProblem {
  const body = isUtf8(received) ? received : Buffer.from(new TextDecoder('utf-8').decode(received), 'utf8');
  let scan: ReturnType<typeof scanListBody>;
  try {
    scan = scanListBody(body, Scanner);
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    return { problem: 'not-json', message: error.message };
  }
  let next = scan.next;
  if (!scan.envelope || next === undefined) {
    // The schema names what is wrong; a body it accepts (a member repeated, say) reads as scanned.
    const parsed = listEnvelopeSchema.safeParse(JSON.parse(body.toString('utf8')));
    if (!parsed.success) return { problem: 'not-envelope', detail: firstIssue(parsed.error) };
    next = parsed.data.next;
  }
  const { list, offset, limit } = asked;
  const page = { list, offset, limit, body, items: scan.items, bytes: received.byteLength };
  return pageOf({ ...page, next: parseNextLink(next) });
}

/**
 * The list envelope (spec 2.1), lenient on purpose: only `next` and `items`, which paging depends on,
 * are required; the items are validated one by one later (src/normalize).
 */
const listEnvelopeSchema = z.looseObject({
  first: z.string().nullish(),
  current: z.string().nullish(),
  next: z.string().nullable(),
  items: z.array(z.unknown()),
});

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'body';
  return `${where}: ${issue?.message ?? 'invalid'}`;
}

// Any absolute base: only the query is read, so the origin used to resolve a relative link is moot.
const RESOLVE_BASE = 'http://next.invalid/';

/** null for no next page; a ProtocolError (not retryable) when the link cannot be read. */
export function parseNextLink(next: string | null): NextLink | null {
  if (next === null) return null;
  const text = next
    .trim()
    .replace(/^<(.*)>$/s, '$1')
    .trim();
  if (!URL.canParse(text, RESOLVE_BASE)) throw unparsable('is not a URL');
  const url = new URL(text, RESOLVE_BASE);
  const offset = integerParam(url.searchParams, 'offset', 0);
  const limit = integerParam(url.searchParams, 'limit', 1);
  if (offset === undefined) throw unparsable('has no offset');
  if (Number.isNaN(offset)) throw unparsable('has an offset that is not an integer >= 0');
  if (limit !== undefined && Number.isNaN(limit)) throw unparsable('has a limit that is not an integer >= 1');
  return { offset, limit };
}

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

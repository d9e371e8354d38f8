/**
 * What the simulator answers: the list envelope (spec 2.1) joined from cached record JSON, error
 * bodies shaped like the real service's, and a body sent whole, slowly in pieces, or cut off halfway.
 */
import { randomBytes } from 'node:crypto';
import { type ServerResponse, STATUS_CODES } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ListQuery } from './query.js';

export type PageLinks = ReturnType<typeof pageLinks>;

/**
 * Page links as the real service writes them: always on /v2/transcription, carrying only status,
 * offset and the served limit (other filters are dropped, so a client must not follow them blindly).
 */
export function pageLinks(baseUrl: string, query: ListQuery, total: number, served: number) {
  const link = (offset: number): string => {
    const params = new URLSearchParams();
    for (const status of query.statuses ?? []) params.append('status', status);
    params.set('offset', String(offset));
    params.set('limit', String(query.limit));
    return `${baseUrl}/v2/transcription?${params}`;
  };
  return {
    first: link(0),
    current: link(query.offset),
    next: query.offset + served >= total ? null : link(query.offset + query.limit),
  };
}

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/** The envelope's bytes: the links, then the cached record bytes joined by commas (one copy). */
export function envelopeBody(links: PageLinks, items: readonly Buffer[]): Buffer {
  const head =
    `{"first":${JSON.stringify(links.first)},"current":${JSON.stringify(links.current)},` +
    `"next":${JSON.stringify(links.next)},"items":[`;
  const joined = items.flatMap((item, i) => (i === 0 ? [item] : [COMMA, item]));
  return Buffer.concat([Buffer.from(head), ...joined, CLOSE]);
}

/** {timestamp, path, request_id, statusCode, message}, plus validation_errors on a 400. */
export function errorBody(status: number, path: string, message: string, errors?: readonly string[]): string {
  return JSON.stringify({
    timestamp: new Date().toISOString(),
    path,
    request_id: `G-${randomBytes(4).toString('hex')}`,
    statusCode: status,
    message: message || (STATUS_CODES[status] ?? 'Error'),
    ...(errors ? { validation_errors: errors } : {}),
  });
}

const JSON_TYPE = 'application/json; charset=utf-8';
const SLOW_PIECES = 8;

export function sendJson(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** Sends the body in pieces spread over `totalMs`; `signal` (the server closing) stops it. */
export async function sendSlowly(
  res: ServerResponse,
  bytes: Buffer,
  totalMs: number,
  signal: AbortSignal,
): Promise<void> {
  res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': bytes.length });
  const size = Math.ceil(bytes.length / SLOW_PIECES);
  for (let piece = 0; piece < SLOW_PIECES - 1; piece++) {
    res.write(bytes.subarray(piece * size, (piece + 1) * size));
    await sleep(totalMs / SLOW_PIECES, undefined, { signal });
    if (res.destroyed) return;
  }
  res.end(bytes.subarray((SLOW_PIECES - 1) * size));
}

/** Declares the full length, sends half of the body, then ends the connection. */
export function sendTruncated(res: ServerResponse, bytes: Buffer): void {
  res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': bytes.length });
  res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.socket?.end());
}

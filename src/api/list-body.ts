/**
 * A 2xx answer's body read as a list envelope: decoded, parsed, its envelope checked and each item's
 * JSON text cut out. Pure (no I/O, no key), so the same code runs in the client and in the sync's
 * decode thread (src/sync/decode-thread.ts), which reads big pages off the main thread. What is
 * wrong with a body comes back as data; the client turns it into its ProtocolError.
 */
import { isAscii } from 'node:buffer';
import { parseListEnvelope } from '../records/envelope.js';
import { itemTexts } from './item-texts.js';

export type ListBody =
  | {
      readonly ok: true;
      /** Job records, not validated. */
      readonly items: readonly unknown[];
      /** Each item's JSON text as received (./item-texts.ts); undefined when it could not be cut out. */
      readonly texts: readonly string[] | undefined;
      /** The envelope's `next`, unread (./next-link.ts reads it). */
      readonly next: string | null;
    }
  | BodyProblem;

export type BodyProblem =
  /** `message`: JSON.parse's own, which may quote the body (the client redacts it). */
  | { readonly ok: false; readonly problem: 'not-json'; readonly message: string }
  /** `detail`: the first offending field of the envelope. */
  | { readonly ok: false; readonly problem: 'not-envelope'; readonly detail: string };

/**
 * The body as text. Most bodies are pure ASCII (JSON escapes everything else or the service sends
 * none), and then latin1 decoding gives the same string several times faster than UTF-8's.
 */
export function decodeBody(body: Uint8Array): string {
  if (isAscii(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1');
  return new TextDecoder('utf-8', { fatal: false }).decode(body);
}

export function readListBody(body: Uint8Array): ListBody {
  const text = decodeBody(body);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      problem: 'not-json',
      message: error instanceof Error ? error.message : String(error),
    };
  }
  const parsed = parseListEnvelope(json);
  if (!parsed.ok) return { ok: false, problem: 'not-envelope', detail: parsed.problem };
  const { items, next } = parsed.envelope;
  return { ok: true, items, texts: itemTexts(text, items.length), next };
}

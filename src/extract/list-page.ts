/**
 * A 2xx answer's body read as a list envelope, without parsing its records: it must be JSON, with
 * `items` an array and `next` a string or null (`first` and `current`, which nothing reads, a
 * string or null when present); each item's span and heads come from one scan (json-scan.ts),
 * which reads the items with the scanner given. Pure, so the client runs it inside its retry loop: a broken body is asked again.
 */
import { isUtf8 } from 'node:buffer';
import { parseListEnvelope } from './envelope.js';
import { type ItemSpan, JsonSyntaxError, type ScannerClass, scanListBody } from './json-scan.js';

/** A list answer as received: its bytes and what the scan found in them. */
export interface ListBody {
  /** The body as UTF-8: as received, unless it was not valid UTF-8 (then decoded, U+FFFD for bad bytes). */
  readonly body: Buffer;
  readonly items: readonly ItemSpan[];
}

export type BodyProblem =
  | { readonly ok: false; readonly problem: 'not-json'; readonly message: string }
  /** `detail`: the first offending field of the envelope. */
  | { readonly ok: false; readonly problem: 'not-envelope'; readonly detail: string };

export type BodyRead =
  | { readonly ok: true; readonly value: ListBody; readonly next: string | null }
  | BodyProblem;

/** Reads `received` as a list envelope whose items `Scanner` reads. */
export function readListBody(received: Uint8Array, Scanner: ScannerClass): BodyRead {
  const bytes = Buffer.from(received.buffer, received.byteOffset, received.byteLength);
  const body = isUtf8(bytes) ? bytes : Buffer.from(new TextDecoder('utf-8').decode(bytes), 'utf8');
  let scan: ReturnType<typeof scanListBody>;
  try {
    scan = scanListBody(body, Scanner);
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    return { ok: false, problem: 'not-json', message: error.message };
  }
  if (!scan.envelope || scan.next === undefined) {
    // The schema names what is wrong; a body it accepts (a member repeated, say) reads as scanned.
    const parsed = parseListEnvelope(JSON.parse(body.toString('utf8')));
    if (!parsed.ok) return { ok: false, problem: 'not-envelope', detail: parsed.problem };
    return { ok: true, value: { body, items: scan.items }, next: parsed.envelope.next };
  }
  return { ok: true, value: { body, items: scan.items }, next: scan.next };
}

/**
 * The read socket's protocol (./read-server.ts ↔ ./reader.ts): one request per connection, each
 * message one line of JSON. Values JSON lacks travel tagged: Date as {"$date": ISO}, bigint as
 * {"$bigint": digits}, an exact number (a DECIMAL's cell) as {"$number": its text}, bytes as
 * {"$bytes": base64}, NaN and the infinities as {"$float": "NaN"}. Every request is validated with
 * zod: whoever can open the socket (its owner only, mode 0600) is still untrusted input.
 */
import type { Socket } from 'node:net';
import { z } from 'zod';
import { ConfigError, DatabaseError } from '../../errors.js';
import { EXPORTED_DATASETS } from '../../store/index.js';
import { ExactNumber } from '../../util/json-writer.js';

/** Largest request line the server reads, in bytes (SQL text and parameters). */
export const MAX_REQUEST_BYTES = 1 << 20;

const params = z.record(z.string(), z.unknown());

export const readRequest = z.discriminatedUnion('op', [
  /** Rows of one statement as objects (reports, status). */
  z.strictObject({ op: z.literal('rows'), sql: z.string(), params: params.optional() }),
  /** A user's SQL text: one ResultTable per statement (those before a failure come with the error). */
  z.strictObject({ op: z.literal('tables'), sql: z.string() }),
  /** A user's one statement written to a Parquet file in the writer's temp folder; the reply names it. */
  z.strictObject({ op: z.literal('query-parquet'), sql: z.string() }),
  /** One exported dataset written to a Parquet file in the writer's temp folder; the reply names it. */
  z.strictObject({
    op: z.literal('parquet'),
    dataset: z.enum(EXPORTED_DATASETS),
    params: z.strictObject({ include_deleted: z.boolean() }),
  }),
]);
export type ReadRequest = z.output<typeof readRequest>;

export interface WireError {
  readonly type: 'config' | 'database';
  readonly setting?: string;
  readonly message: string;
  readonly hint?: string;
  readonly retryable?: boolean;
}

/** Any error as the server sends it: ConfigErrors keep their setting and hint, the rest become DB errors. */
export function toWireError(error: unknown): WireError {
  if (error instanceof ConfigError) {
    const message = error.message.slice(error.setting.length + 2);
    return { type: 'config', setting: error.setting, message, ...(error.hint ? { hint: error.hint } : {}) };
  }
  const message = error instanceof Error ? error.message : String(error);
  const hint = error instanceof DatabaseError ? error.hint : undefined;
  const retryable = error instanceof DatabaseError ? error.retryable : false;
  return { type: 'database', message, retryable, ...(hint ? { hint } : {}) };
}

export function fromWireError(wire: WireError, path: string): Error {
  const options = wire.hint ? { hint: wire.hint } : {};
  if (wire.type === 'config') return new ConfigError(wire.setting ?? 'query', wire.message, options);
  return new DatabaseError(wire.message, { path, retryable: wire.retryable ?? false, ...options });
}

export function encodeWire(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key, plain: unknown) {
    const raw = this[key];
    if (raw instanceof Date) return { $date: raw.toISOString() };
    if (typeof raw === 'bigint') return { $bigint: raw.toString() };
    if (raw instanceof ExactNumber) return { $number: raw.text };
    if (raw instanceof Uint8Array) return { $bytes: Buffer.from(raw).toString('base64') };
    if (typeof raw === 'number' && !Number.isFinite(raw)) return { $float: String(raw) };
    return plain;
  });
}

export function decodeWire(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    if (Object.keys(value).length !== 1) return value;
    const tagged = value as Record<string, unknown>;
    if (typeof tagged['$date'] === 'string') return new Date(tagged['$date']);
    if (typeof tagged['$bigint'] === 'string') return BigInt(tagged['$bigint']);
    if (typeof tagged['$number'] === 'string') return new ExactNumber(tagged['$number']);
    if (typeof tagged['$bytes'] === 'string') return new Uint8Array(Buffer.from(tagged['$bytes'], 'base64'));
    if (typeof tagged['$float'] === 'string') return Number(tagged['$float']);
    return value;
  });
}

/**
 * The first line `socket` sends, without its newline; reading stops there (the socket is paused).
 * `ended` is the failure when the socket ends, closes or errs before a whole line; a line past
 * `maxBytes` is refused as too large. Decoded as a stream, so a character cut between two chunks is
 * joined, not turned into U+FFFD; only new text is searched for the newline.
 */
export function readWireLine(
  socket: Socket,
  ended: () => Error,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: string) => {
      const from = buffered.length;
      buffered += chunk;
      const end = buffered.indexOf('\n', from);
      if (end >= 0) {
        cleanup();
        socket.pause();
        resolve(buffered.slice(0, end));
      } else if (socket.bytesRead > maxBytes) {
        cleanup();
        reject(new ConfigError('query', `the request is larger than ${maxBytes} bytes`));
      }
    };
    const onEnd = () => {
      cleanup();
      reject(ended());
    };
    const cleanup = () => {
      socket.off('data', onData).off('end', onEnd).off('close', onEnd).off('error', onEnd);
    };
    socket.setEncoding('utf8');
    socket.on('data', onData).on('end', onEnd).on('close', onEnd).on('error', onEnd);
  });
}

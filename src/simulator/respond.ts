/**
 * Ways of sending a body: whole, slowly in pieces, or cut off halfway (the socket ends before
 * the declared Content-Length is reached). Timers are tracked so that closing the simulator
 * never leaves one behind.
 */
import type { ServerResponse } from 'node:http';

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

/** Sends the body in pieces spread over `totalMs`. */
export function sendSlowly(
  res: ServerResponse,
  bytes: Buffer,
  totalMs: number,
  timers: Set<NodeJS.Timeout>,
): void {
  res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': bytes.length });
  const size = Math.ceil(bytes.length / SLOW_PIECES);
  let piece = 0;
  const step = (): void => {
    if (res.destroyed) return;
    const chunk = bytes.subarray(piece * size, (piece + 1) * size);
    piece += 1;
    if (piece >= SLOW_PIECES) {
      res.end(chunk);
      return;
    }
    res.write(chunk);
    const timer = setTimeout(() => {
      timers.delete(timer);
      step();
    }, totalMs / SLOW_PIECES);
    timers.add(timer);
  };
  step();
}

/** Declares the full length, sends half of the body, then ends the connection. */
export function sendTruncated(res: ServerResponse, bytes: Buffer): void {
  res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': bytes.length });
  res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.socket?.end());
}

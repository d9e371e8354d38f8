/**
 * A local stand-in for a service whose `next` links name another origin: an HTTP server that
 * passes each request on to the simulator (headers included) and rewrites `next` in the answer to
 * a link of another server, the "foreign origin", in each of the spellings given, one answer after
 * the other. Both listen on 127.0.0.1.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Origin {
  readonly url: string;
  /** Requests it received, with whether they carried an x-service-key header. */
  readonly requests: { path: string; hadKey: boolean }[];
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/** A server that answers every request with an empty page and records it. */
export async function startForeignOrigin(): Promise<Origin> {
  const requests: Origin['requests'] = [];
  const server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', hadKey: req.headers['x-service-key'] !== undefined });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ first: '', current: '', next: null, items: [] }));
  });
  return { url: await listen(server), requests, close: closer(server) };
}

/** How `next` is spelled towards the foreign origin; `query` is the query string of the real link. */
export type NextSpelling = (foreign: URL, query: string) => string;

export const NEXT_SPELLINGS: Readonly<Record<string, NextSpelling>> = {
  absolute: (f, q) => `http://${f.host}/v2/transcription?${q}`,
  'protocol-relative': (f, q) => `//${f.host}/v2/transcription?${q}`,
  'with credentials': (f, q) => `http://user:pass@${f.host}/v2/pre-recorded?${q}`,
  'angle brackets': (f, q) => `<http://${f.host}/v2/transcription?${q}>`,
  https: (f, q) => `https://${f.host}/v2/live?${q}`,
};

export interface RelinkingProxy extends Origin {
  /** The name of the spelling of each `next` it rewrote, in order. */
  readonly spelled: string[];
}

/** Rewrites each `next` in the next of `spellings` (by name), in turn, round and round. */
export async function startRelinkingProxy(
  target: string,
  foreign: string,
  spellings: Readonly<Record<string, NextSpelling>>,
): Promise<RelinkingProxy> {
  const requests: Origin['requests'] = [];
  const spelled: string[] = [];
  const names = Object.keys(spellings);
  const foreignUrl = new URL(foreign);
  const server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', hadKey: req.headers['x-service-key'] !== undefined });
    forward(req, target)
      .then(async (upstream) => {
        const text = await upstream.text();
        let body = text;
        if (upstream.status === 200) {
          const envelope = JSON.parse(text) as { next: string | null };
          if (envelope.next !== null) {
            const name = names[spelled.length % names.length]!;
            spelled.push(name);
            envelope.next = spellings[name]!(foreignUrl, new URL(envelope.next).search.slice(1));
          }
          body = JSON.stringify(envelope);
        }
        res.writeHead(upstream.status, { 'content-type': 'application/json' });
        res.end(body);
      })
      .catch(() => res.destroy());
  });
  return { url: await listen(server), requests, spelled, close: closer(server) };
}

function forward(req: IncomingMessage, target: string): Promise<Response> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string' && name !== 'host' && name !== 'connection') headers[name] = value;
  }
  return fetch(`${target}${req.url ?? '/'}`, { headers });
}

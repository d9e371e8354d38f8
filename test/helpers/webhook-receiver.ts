/** A real HTTP receiver of webhook POSTs on 127.0.0.1, closed after the test. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onCleanup } from './cleanup.js';

export interface ReceivedEvent {
  readonly event: string;
  readonly payload: { readonly id: string };
}

/** Listens on a free port; each POST's JSON body is pushed to `received` and answered 202. */
export async function webhookReceiver(): Promise<{ url: string; received: ReceivedEvent[] }> {
  const received: ReceivedEvent[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push(JSON.parse(body) as ReceivedEvent);
      response.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

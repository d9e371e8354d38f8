/**
 * The worker's operations endpoint: GET /metrics (Prometheus text format) and GET /healthz (200 or
 * 503 with a JSON report). Binds 127.0.0.1 unless told otherwise (a container publishes it with
 * --metrics-host 0.0.0.0); port 0 picks a free port, which `port` then tells. It is bound before the
 * worker locks the database or registers anything, so a port that cannot be bound fails at once as
 * one ConfigError line naming the flag (exit 2).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { toError } from '../errors.js';
import type { Logger } from '../log.js';
import { writeJson } from '../util/json-writer.js';
import { listenError } from '../util/listen-error.js';
import type { HealthReport } from './health.js';

export interface MetricsServerOptions {
  readonly host: string;
  readonly port: number;
  readonly registry: Registry;
  readonly health: () => Promise<HealthReport>;
  readonly logger: Logger;
}

/** An HTTP endpoint of the worker, listening: its port (port 0 picked a free one) and its close. */
export interface Endpoint {
  readonly port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(options: MetricsServerOptions): Promise<Endpoint> {
  const server = createServer((request, response) => {
    handle(options, request, response).catch((error) => {
      options.logger.error({ err: toError(error), url: request.url }, 'metrics endpoint failed');
      if (!response.headersSent) send(response, 500, 'text/plain', 'internal error\n');
      else response.destroy();
    });
  });
  // Scrapers hold connections open; close() must not wait for them.
  server.keepAliveTimeout = 5_000;
  return listen(server, options, 'metrics');
}

/**
 * Listens on `at`'s host and port: a failure to bind rejects with the ConfigError naming
 * `--<flags>-port` or `--<flags>-host`, a later error is logged as the `<flags>` endpoint's.
 * close() ends open connections rather than waiting for them.
 */
export async function listen(
  server: Server,
  at: { readonly host: string; readonly port: number; readonly logger: Logger },
  flags: 'metrics' | 'webhook',
): Promise<Endpoint> {
  const { host, port } = at;
  const place = { host, port, portFlag: `--${flags}-port`, hostFlag: `--${flags}-host` };
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(listenError(error, { ...place, holder: 'another worker?' })));
    server.listen(at.port, at.host, () => {
      server.removeAllListeners('error');
      server.on('error', (error) => at.logger.error({ err: error }, `${flags} endpoint error`));
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(options: MetricsServerOptions, request: IncomingMessage, response: ServerResponse) {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return send(response, 405, 'text/plain', 'only GET\n');
  }
  if (path === '/metrics') {
    return send(response, 200, options.registry.contentType, await options.registry.metrics());
  }
  if (path === '/healthz') {
    const report = await options.health();
    return send(
      response,
      report.status === 'unhealthy' ? 503 : 200,
      'application/json',
      `${writeJson(report)}\n`,
    );
  }
  return send(response, 404, 'text/plain', 'not found: try /metrics or /healthz\n');
}

/** Answers `status` with `body` of content type `type`. */
export function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

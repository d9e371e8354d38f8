/**
 * The worker's operations endpoint: GET /metrics (Prometheus text format) and GET /healthz (200 or
 * 503 with a JSON report). Binds 127.0.0.1 unless told otherwise (a container publishes it with
 * --metrics-host 0.0.0.0); port 0 picks a free port, which `port` then tells.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { toError } from '../errors.js';
import type { Logger } from '../log.js';
import { writeJson } from '../util/json-writer.js';
import type { HealthReport } from './health.js';
import { bindError } from './startup-checks.js';

export interface MetricsServerOptions {
  readonly host: string;
  readonly port: number;
  readonly registry: Registry;
  readonly health: () => Promise<HealthReport>;
  readonly logger: Logger;
}

export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    handle(options, request, response).catch((error) => {
      options.logger.error({ err: toError(error), url: request.url }, 'metrics endpoint failed');
      if (!response.headersSent) send(response, 500, 'text/plain', 'internal error\n');
      else response.destroy();
    });
  });
  // Scrapers hold connections open; close() must not wait for them.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(bindError(error, options.host, options.port)));
    server.listen(options.port, options.host, () => {
      server.removeAllListeners('error');
      server.on('error', (error) => options.logger.error({ err: error }, 'metrics endpoint error'));
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
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

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

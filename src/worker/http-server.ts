/**
 * The worker's operations endpoint: GET /metrics (Prometheus text format) and GET /healthz (200 or
 * 503 with a JSON report). Binds 127.0.0.1 unless told otherwise (--metrics-host); port 0 picks a
 * free port, which `port` then tells.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import { toError } from '../errors.js';
import type { JobKind } from '../kinds.js';
import type { Logger } from '../log.js';
import { formatDuration, formatDurationSetting } from '../util/duration.js';
import { writeJson } from '../util/json-writer.js';
import { listenError } from '../util/listen-error.js';
import { within } from '../util/within.js';
import type { WorkerMetrics } from './metrics.js';
import type { BusyState } from './processor.js';

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
  return serve((request, response) => handle(options, request, response), options, 'metrics');
}

/**
 * Serves `handle` on `at`'s host and port: a failure to bind rejects with the ConfigError naming
 * `--<flags>-port` or `--<flags>-host`; a later error, or a failure of `handle` (answered 500 when
 * nothing was sent yet), is logged as the `<flags>` endpoint's, never with the webhook's URL (it
 * holds the secret). `requestTimeoutMs`: how long a request may take to arrive, headers and body.
 * close() ends open connections rather than waiting for them.
 */
/** ms between Node's checks for a request past `requestTimeoutMs`: how late past it one may end. */
const CHECK_EVERY_MS = 250;

export async function serve(
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
  at: {
    readonly host: string;
    readonly port: number;
    readonly logger: Logger;
    readonly requestTimeoutMs?: number;
  },
  flags: 'metrics' | 'webhook',
): Promise<Endpoint> {
  const { host, port, logger } = at;
  // Node looks for requests past their timeout only every connectionsCheckingInterval, by default
  // far less often than a request timeout asks.
  const checking = at.requestTimeoutMs === undefined ? {} : { connectionsCheckingInterval: CHECK_EVERY_MS };
  const server = createServer(checking, (request, response) => {
    handle(request, response).catch((error) => {
      const url = flags === 'webhook' ? {} : { url: request.url };
      logger.error({ err: toError(error), ...url }, `${flags} endpoint failed`);
      if (!response.headersSent) send(response, 500, 'text/plain', 'internal error\n');
      else response.destroy();
    });
  });
  // Clients (scrapers) hold connections open; close() must not wait for them.
  server.keepAliveTimeout = 5_000;
  if (at.requestTimeoutMs !== undefined) {
    server.headersTimeout = at.requestTimeoutMs;
    server.requestTimeout = at.requestTimeoutMs;
  }
  const place = { host, port, portFlag: `--${flags}-port`, hostFlag: `--${flags}-host` };
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(listenError(error, { ...place, holder: 'another worker?' })));
    server.listen(port, host, () => {
      server.removeAllListeners('error');
      server.on('error', (error) => logger.error({ err: error }, `${flags} endpoint error`));
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
  const path = pathOf(request);
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

/**
 * The path a request asks for; undefined when its target is no URL (`http://[/`), which names no
 * path either endpoint answers.
 */
export function pathOf(request: IncomingMessage): string | undefined {
  try {
    return new URL(request.url ?? '/', 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}

export function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

/** ms a PING may take before Redis counts as unreachable. */
const PING_TIMEOUT_MS = 2_000;

export interface HealthOptions {
  readonly redis: Redis;
  readonly kinds: readonly JobKind[];
  /** ms */
  readonly staleAfterMs: number;
  /** ms since the epoch */
  readonly startedAt: number;
  readonly metrics: WorkerMetrics;
  /** Since when runs have found the database file busy, if they do. */
  readonly busy?: () => BusyState | undefined;
  /** ms the file may stay busy before the report says `degraded` (the run interval). */
  readonly busyAfterMs?: number;
}

export interface KindHealth {
  /** ISO 8601, null before the first success of this process. */
  readonly last_success: string | null;
  /** Seconds since the last success, or since the worker started when there is none. */
  readonly age_seconds: number;
  readonly stale: boolean;
  /** How the last run ended (ok, failed, interrupted), null before the first. */
  readonly last_outcome: string | null;
  /** The last run's error when it failed, else null. */
  readonly last_error: string | null;
  /** Whether a retry can fix the last failure; null when the last run did not fail. */
  readonly last_error_retryable: boolean | null;
}

export interface FileBusyHealth {
  /** ISO 8601: when runs first found the file held. */
  readonly since: string;
  readonly seconds: number;
  /** Who holds it, as the last refusal said. */
  readonly holder: string;
}

export interface HealthReport {
  /** `degraded` answers 200 like `ok`; `unhealthy` 503. */
  readonly status: 'ok' | 'degraded' | 'unhealthy';
  readonly redis: 'ok' | 'unreachable';
  /** Set while runs find the database file busy; null when the last run took it. */
  readonly file_busy?: FileBusyHealth | null;
  readonly kinds: Readonly<Partial<Record<JobKind, KindHealth>>>;
  readonly reasons: readonly string[];
}

/**
 * What /healthz answers: 200 only when Redis answers PING, no selected kind's last run failed with
 * an error no retry can fix, and every selected kind has had a successful run within `staleAfterMs`,
 * counted from the worker's start before its first (so a long first backfill is not restarted).
 * A database file busy for longer than `busyAfterMs` makes it `degraded`, still 200: a restart
 * cannot fix it, and it goes stale in time if it lasts.
 */
export async function checkHealth(options: HealthOptions, now = Date.now()): Promise<HealthReport> {
  const reasons: string[] = [];
  const redis = await ping(options.redis);
  if (redis !== undefined) reasons.push(`Redis does not answer PING: ${redis}`);
  const kinds: Partial<Record<JobKind, KindHealth>> = {};
  for (const kind of options.kinds) {
    const last = options.metrics.lastSuccess(kind);
    const outcome = options.metrics.lastOutcome(kind);
    const failed = outcome?.outcome === 'failed';
    const age = now - (last ?? options.startedAt);
    const stale = age > options.staleAfterMs;
    kinds[kind] = {
      last_success: last === undefined ? null : new Date(last).toISOString(),
      age_seconds: Math.round(age / 1_000),
      stale,
      last_outcome: outcome?.outcome ?? null,
      last_error: failed ? outcome.reason : null,
      last_error_retryable: failed ? outcome.retryable : null,
    };
    if (failed && !outcome.retryable) {
      reasons.push(
        `the last ${kind} sync failed with an error no retry can fix (${outcome.code ?? 'error'}): ${outcome.reason ?? 'no reason given'}`,
      );
    }
    if (stale) {
      const since = last === undefined ? 'since the worker started' : 'in';
      reasons.push(
        `no successful ${kind} sync ${since} ${formatDuration(age)} (stale after ${formatDurationSetting(options.staleAfterMs)})`,
      );
    }
  }
  const unhealthy = reasons.length > 0;
  const busy = options.busy?.();
  const busyMs = busy === undefined ? 0 : now - busy.since;
  const degraded = busy !== undefined && busyMs > (options.busyAfterMs ?? 0);
  if (degraded) {
    reasons.push(
      `the database file has been busy for ${formatDuration(busyMs)}, longer than the run interval (${formatDuration(options.busyAfterMs ?? 0)}): ${busy.holder}`,
    );
  }
  const fileBusy: FileBusyHealth | null = busy
    ? { since: new Date(busy.since).toISOString(), seconds: Math.round(busyMs / 1_000), holder: busy.holder }
    : null;
  return {
    status: unhealthy ? 'unhealthy' : degraded ? 'degraded' : 'ok',
    redis: redis === undefined ? 'ok' : 'unreachable',
    kinds,
    ...(options.busy ? { file_busy: fileBusy } : {}),
    reasons,
  };
}

/** undefined when Redis answered, else why not. */
async function ping(redis: Redis): Promise<string | undefined> {
  const answer = redis.ping().then(
    (answer) => (answer === 'PONG' ? undefined : `answered ${answer}`),
    (error: unknown) => toError(error).message,
  );
  return within(answer, PING_TIMEOUT_MS, `no answer within ${PING_TIMEOUT_MS} ms`);
}

/**
 * The simulator's HTTP server: GET /v2/transcription, /v2/pre-recorded and /v2/live and DELETE of
 * one job, behind the x-service-key header, answered as the real service does, faults on demand.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Account } from './account.js';
import { JobStore, type SimulatorData } from './data.js';
import { SERVER_DEFAULTS } from './defaults.js';
import { breakRecord, Faults } from './faults.js';
import { JobChanges, lifecycleOf } from './growth.js';
import type { ListItem } from './listing.js';
import { LIST_PATHS, type ListQuery, parseListQuery } from './query.js';
import { accountSpec } from './records/generate.js';
import {
  envelopeBody,
  errorBody,
  type PageLinks,
  pageLinks,
  sendJson,
  sendSlowly,
  sendTruncated,
} from './respond.js';
import { Rng } from './rng.js';
import {
  type FaultKind,
  JOB_KINDS,
  type RequestLogEntry,
  type SimulatorOptions,
  STATUS_FAULT_KINDS,
} from './types.js';
import { startWebhookSender, type WebhookSender } from './webhooks.js';

export interface Simulator {
  /** http://HOST:PORT, no trailing slash. */
  readonly url: string;
  readonly apiKey: string;
  readonly data: SimulatorData;
  readonly faults: Faults;
  readonly log: RequestLogEntry[];
  /** With `webhookUrl`: what was posted there. */
  readonly webhooks: WebhookSender | undefined;
  setLatency(ms: number): void;
  close(): Promise<void>;
}

/** Where 'next-foreign-origin' points: a host that must never be called. */
const FOREIGN_ORIGIN = 'http://evil.example.test';

/** Appended to half a page for 'bad-json': what a proxy's error page glued to a body looks like. */
const BAD_TAIL = Buffer.from('\n<html>upstream hiccup');

type LogBase = Omit<RequestLogEntry, 'status' | 'fault' | 'answeredMs'>;

/** `DELETE` of one job: `/v2/pre-recorded/{id}`, `/v2/live/{id}`, or `/v2/transcription/{id}` (any kind). */
const JOB_PATH = /^\/v2\/(pre-recorded|live|transcription)\/([^/]+)$/;

/** Now, ms since the epoch, on the monotonic clock: the log's times compare exactly in a process. */
const nowMs = (): number => performance.timeOrigin + performance.now();

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const clock = options.clock ?? Date.now;
  const { spec, jobs: generated } = accountSpec(options);
  const jobs = options.records ? 0 : generated;
  const lifecycle = options.grow ? lifecycleOf(new Account(spec), jobs, options.grow, clock()) : undefined;
  const account = new Account(lifecycle ? { ...spec, lifecycle } : spec);
  const changes = options.webhookUrl === undefined ? undefined : new JobChanges();
  const store = new JobStore(account, {
    changes,
    jobs,
    records: options.records,
    rng: new Rng(spec.seed ^ 0xada),
    clock,
    cacheBytes: options.cacheBytes ?? 32 * 1024 * 1024,
    retentionMs: options.retentionMs,
  });
  const sim = new SimulatorServer(store, new Faults(spec.seed, options.faults), options);
  await sim.listen(options.host ?? SERVER_DEFAULTS.host, options.port ?? 0);
  if (changes)
    sim.webhooks = startWebhookSender(changes, () => store.tick(), options.webhookUrl!, options.onWebhook);
  return sim;
}

class SimulatorServer implements Simulator {
  readonly log: RequestLogEntry[] = [];
  readonly apiKey: string;
  url = '';
  webhooks: WebhookSender | undefined;
  private latencyMs: number;
  private readonly limitCap: number;
  private readonly server: Server;
  private readonly closing = new AbortController();
  private inFlight = 0; // requests whose answer is not sent yet

  constructor(
    readonly data: JobStore,
    readonly faults: Faults,
    private readonly options: SimulatorOptions,
  ) {
    this.apiKey = options.apiKey ?? SERVER_DEFAULTS.apiKey;
    this.latencyMs = options.latencyMs ?? SERVER_DEFAULTS.latencyMs;
    this.limitCap = options.limitCap ?? SERVER_DEFAULTS.limitCap;
    if (!(this.limitCap >= 1)) throw new RangeError(`limitCap must be at least 1 (got ${this.limitCap})`);
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => this.fail(req, res, error));
    });
  }

  async listen(host: string, port: number): Promise<void> {
    this.server.listen(port, host);
    await once(this.server, 'listening');
    const address = this.server.address() as AddressInfo;
    this.url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  }

  setLatency(ms: number): void {
    this.latencyMs = Math.max(0, ms);
  }

  async close(): Promise<void> {
    this.webhooks?.close();
    this.closing.abort();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.inFlight += 1;
    res.once('close', () => (this.inFlight -= 1));
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    const method = req.method ?? 'GET';
    const key = req.headers['x-service-key'];
    const base: LogBase = {
      method,
      path: url.pathname,
      query: url.search.slice(1),
      hadKey: key !== undefined,
      arrivedMs: nowMs(),
      inFlight: this.inFlight,
    };
    if (this.latencyMs > 0) await sleep(this.latencyMs);
    const list = method === 'GET' ? LIST_PATHS[url.pathname as keyof typeof LIST_PATHS] : undefined;
    if (list === undefined && !(method === 'DELETE' && JOB_PATH.test(url.pathname))) {
      return this.reply(res, base, 404, errorBody(404, url.pathname, `Cannot ${method} ${url.pathname}`));
    }
    if (key !== this.apiKey) {
      const message = key === undefined ? 'missing x-service-key header' : 'invalid x-service-key';
      return this.reply(res, base, 401, errorBody(401, url.pathname, message));
    }
    if (list === undefined) return this.deleteJob(res, base, url.pathname);
    const parsed = parseListQuery(url.searchParams, list, this.limitCap);
    if (!parsed.ok) {
      return this.reply(res, base, 400, errorBody(400, url.pathname, 'Bad Request', parsed.errors));
    }
    const offsetCap = this.options.offsetCap;
    if (offsetCap !== undefined && parsed.query.offset > offsetCap) {
      const errors = [`offset must not be greater than ${offsetCap}`];
      return this.reply(res, base, 400, errorBody(400, url.pathname, 'Bad Request', errors));
    }
    this.serveList(req, res, base, parsed.query, this.faults.take(base));
  }

  /**
   * Once the key is accepted, as the service answers: 202 with no body, the job gone from the list;
   * 404 when the list holds no such job (another kind's, already deleted, past the retention).
   */
  private deleteJob(res: ServerResponse, base: LogBase, path: string): void {
    const [, list = '', id = ''] = JOB_PATH.exec(path) ?? [];
    const kinds = list === 'transcription' ? JOB_KINDS : JOB_KINDS.filter((kind) => kind === list);
    const what = list === 'transcription' ? 'transcription' : list.replace('-', ' ');
    if (this.data.deleteOf(decodeURIComponent(id), kinds)) this.reply(res, base, 202, '');
    else
      this.reply(res, base, 404, errorBody(404, path, `The ${what} job doesn't exist or has been deleted`));
  }

  private serveList(
    req: IncomingMessage,
    res: ServerResponse,
    base: LogBase,
    query: ListQuery,
    fault?: FaultKind,
  ): void {
    if (fault !== undefined && (STATUS_FAULT_KINDS as readonly FaultKind[]).includes(fault)) {
      const status = Number(fault);
      const body = errorBody(status, base.path, fault === '429' ? 'Too Many Requests' : '');
      this.record({ ...base, status, fault });
      sendJson(res, status, body, this.faults.headersOf(fault));
      return;
    }
    if (fault === 'reset') {
      this.record({ ...base, status: 0, fault });
      req.socket.resetAndDestroy();
      return;
    }
    const matching = this.data.list(query);
    const total =
      fault === 'shrink-total' && query.offset > 0
        ? Math.min(matching.total, query.offset + 1)
        : matching.total;
    let page = matching.slice(query.offset, Math.min(total, query.offset + query.limit));
    const links = this.linksFor(query, total, page.length, fault);
    if (fault === 'empty-page') page = [];
    if (fault === 'short-page' && links.next !== null) page = page.slice(0, page.length >> 1);
    const body = envelopeBody(links, this.itemsOf(page, fault));
    this.record({ ...base, status: 200, ...(fault ? { fault } : {}) });
    if (fault === 'slow')
      sendSlowly(res, body, this.faults.slowMs, this.closing.signal).catch(() => res.destroy());
    else if (fault === 'truncate') sendTruncated(res, body);
    else if (fault === 'bad-json')
      sendJson(res, 200, Buffer.concat([body.subarray(0, body.length >> 1), BAD_TAIL]));
    else sendJson(res, 200, body);
  }

  private linksFor(query: ListQuery, total: number, served: number, fault?: FaultKind): PageLinks {
    const links = pageLinks(this.url, query, total, served);
    // The next link, when there is one, names another origin (the last page still ends the list:
    // a next link there would be an empty or short page that links onward, another fault).
    if (fault === 'next-foreign-origin' && links.next !== null) {
      return { ...links, next: pageLinks(FOREIGN_ORIGIN, query, total, served).next };
    }
    if (fault === 'next-stuck') return { ...links, next: links.current };
    // 'empty-page' links onward whether or not anything follows.
    if (fault === 'empty-page')
      return { ...links, next: pageLinks(this.url, query, Number.POSITIVE_INFINITY, 0).next };
    return links;
  }

  private itemsOf(page: readonly ListItem[], fault?: FaultKind): Buffer[] {
    const items = page.map((item) => this.data.bytesOf(item));
    if (fault === 'malformed-record' && items.length > 0) {
      const index = this.faults.shapeRng.int(0, items.length - 1);
      items[index] = breakRecord(items[index]!, this.faults.shapeRng);
    }
    return items;
  }

  private reply(res: ServerResponse, base: LogBase, status: number, body: string): void {
    this.record({ ...base, status });
    sendJson(res, status, body);
  }

  private record(answered: Omit<RequestLogEntry, 'answeredMs'>): void {
    const entry = { ...answered, answeredMs: nowMs() };
    if (this.options.keepLog !== false) this.log.push(entry);
    this.options.onRequest?.(entry);
  }

  /** A bug in the simulator itself: answer 500 rather than hang the client. */
  private fail(req: IncomingMessage, res: ServerResponse, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const [method, path, arrivedMs] = [req.method ?? 'GET', req.url ?? '/', nowMs()];
    this.record({ method, path, query: '', status: 500, hadKey: false, arrivedMs, inFlight: this.inFlight });
    sendJson(res, 500, errorBody(500, req.url ?? '/', `simulator bug: ${message}`));
  }
}

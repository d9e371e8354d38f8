/**
 * The listing service client: one keep-alive pool to the configured origin, a rate limit shared by
 * every call, the account's throttle (./throttle.ts: a 429's Retry-After pauses every call, and
 * repeated ones halve the calls in flight), retries by the table in ./retry-policy.ts, and typed
 * errors that never carry the key.
 *
 * The key lives in private fields only (`#headers`), so util.inspect(client) and JSON of the
 * client cannot show it; it is sent as `x-service-key` and nowhere else.
 */
import pRetry from 'p-retry';
import type { Pool } from 'undici';
import { isRetryable, ProtocolError, ResponseTooLargeError } from '../errors.js';
import type { ListName } from '../kinds.js';
import { type Logger, silentLogger } from '../log.js';
import { formatBytes } from '../util/bytes.js';
import { formatDuration } from '../util/duration.js';
import { sleep } from '../util/sleep.js';
import type { ClientOptions, ClientStats, ListParams, RequestOptions, SlowBody } from './client-options.js';
import { checkApiKey, parseBaseUrl, positive, retryPolicyOf, SLOW_BODY } from './client-options.js';
import { HeadScanner, type ScannerClass } from './json-scan.js';
import { type Listing, type Page, readPage } from './listing.js';
import { buildQuery, DEFAULT_LIMIT } from './query.js';
import { accountSignal, type RetryPolicy, retryDelayMs } from './retry-policy.js';
import { DEFAULT_RATE_LIMIT, RateLimiter, REPEAT_SPAN_MS, Throttle, type Ticket } from './throttle.js';
import {
  bodyError,
  describeError,
  type Redact,
  redactor,
  statusError,
  transportError,
} from './upstream-errors.js';

/** The longest body the client ever reads: under V8's longest string, which a latin1 decoding would overrun. */
export const MAX_BODY_BYTES = 480 * 2 ** 20;

/** Requests in flight at most by default (ClientOptions.concurrency), and the fewest keep-alive connections. */
const DEFAULT_CONCURRENCY = 8;

/** One page's GET, as its retries, its turn of the rate and its send see it. */
interface PageRequest {
  readonly asked: Pick<Page, 'list' | 'offset' | 'limit'>;
  /** The path and query sent (never the key: that is a header). */
  readonly pathAndQuery: string;
  /** `GET /v2/...`, as errors and logs name the request. */
  readonly where: string;
  readonly signal: AbortSignal | undefined;
  /** Bytes of body read at most; a longer answer fails with ResponseTooLargeError. */
  readonly maxBytes: number;
}

export class ListingClient implements Listing {
  /** Live counters; read them, do not write them. */
  readonly stats: ClientStats = { requests: 0, retries: 0, pauses: 0, bytes: 0 };
  /** Opened at the first request: commands that never fetch never load undici. */
  #pool: Promise<Pool> | undefined;
  #closed = false;
  readonly #origin: string;
  readonly #poolOptions: Pool.Options;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #basePath: string;
  readonly #limiter: RateLimiter;
  readonly #throttle: Throttle;
  readonly #policy: RetryPolicy;
  readonly #logger: Logger;
  readonly #onRetry: ClientOptions['onRetry'];
  readonly #redact: Redact;
  readonly #scanner: ScannerClass;
  readonly #slowBody: SlowBody;

  constructor(options: ClientOptions) {
    const base = parseBaseUrl(options.baseUrl);
    checkApiKey(options.apiKey);
    this.#redact = redactor(options.apiKey);
    this.#headers = Object.freeze({ 'x-service-key': options.apiKey, accept: 'application/json' });
    // The base URL's own path is kept, so a proxy prefix works.
    this.#basePath = base.pathname.replace(/\/+$/, '');
    this.#policy = retryPolicyOf(options);
    this.#limiter = new RateLimiter(
      options.rateLimit ?? DEFAULT_RATE_LIMIT,
      Math.max(1, positive('burst', options.burst, 1, true)),
    );
    const concurrency = Math.max(1, positive('concurrency', options.concurrency, DEFAULT_CONCURRENCY, true));
    this.#throttle = new Throttle(concurrency);
    this.#logger = (options.logger ?? silentLogger).child({ component: 'api' });
    this.#onRetry = options.onRetry;
    this.#scanner = options.scanner ?? HeadScanner;
    this.#slowBody = options.slowBody ?? SLOW_BODY;
    this.#origin = base.origin;
    // undici's timeouts are in ms.
    this.#poolOptions = {
      // Never fewer than the requests let in flight: one queued in the pool could leave in a pause.
      connections: Math.max(concurrency, DEFAULT_CONCURRENCY),
      connect: {
        timeout: 10_000,
        // Stated, not inherited: node's NODE_TLS_REJECT_UNAUTHORIZED=0 would otherwise switch
        // certificate checks off and hand the key to whoever answers. Nothing turns this off.
        rejectUnauthorized: true,
      },
      headersTimeout: 30_000,
      bodyTimeout: positive('bodyTimeoutMs', options.bodyTimeoutMs, 30_000),
    };
  }

  /** One page, retried per the policy (a body that is no list envelope too); filters checked first. */
  async getPage(list: ListName, params: ListParams = {}, options: RequestOptions = {}): Promise<Page> {
    const query = buildQuery(list, params);
    const path = `${this.#basePath}/v2/${list}`;
    const where = `GET ${path}`;
    const { signal } = options;
    const request: PageRequest = {
      asked: { list, offset: params.offset ?? 0, limit: params.limit ?? DEFAULT_LIMIT },
      pathAndQuery: `${path}?${query}`,
      where,
      signal,
      maxBytes: Math.min(options.maxBytes ?? MAX_BODY_BYTES, MAX_BODY_BYTES),
    };
    try {
      return await pRetry(() => this.#attempt(request), {
        retries: this.#policy.maxAttempts - 1,
        // p-retry's own delay is off: ours (Retry-After, full jitter) is slept in shouldRetry.
        minTimeout: 0,
        signal,
        shouldRetry: async ({ error, attemptNumber }) => {
          // A shutdown aborts the request in flight: that is no failure to retry (or warn about).
          if (signal?.aborted || !isRetryable(error)) return false;
          const delayMs = retryDelayMs(this.#policy, error, attemptNumber);
          this.stats.retries++;
          this.#logger.warn(
            {
              where,
              attempt: attemptNumber,
              of: this.#policy.maxAttempts,
              delay_ms: delayMs,
              err: describeError(error),
            },
            'request failed, retrying',
          );
          this.#onRetry?.({ attempt: attemptNumber, delayMs, error });
          await sleep(delayMs, signal);
          return true;
        },
      });
    } catch (error) {
      // Whatever was in flight when the caller aborted, the caller's reason is the answer.
      if (signal?.aborted) throw signal.reason;
      throw error;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#pool) await (await this.#pool).close();
  }

  #openPool(): Promise<Pool> {
    if (this.#closed && !this.#pool) throw new Error('the listing client is closed');
    this.#pool ??= import('undici').then(({ Pool }) => new Pool(this.#origin, this.#poolOptions));
    return this.#pool;
  }

  /** One try: a place among the requests in flight, the rate's turn, the GET and its answer read. */
  async #attempt(request: PageRequest): Promise<Page> {
    const { asked, pathAndQuery, where, signal } = request;
    const ticket = await this.#throttle.enter(signal);
    try {
      // A pause can begin while this request waits for its turn of the rate: it waits that out too.
      do {
        await this.#throttle.pauseOver(signal);
        await this.#limiter.acquire(signal);
      } while (this.#throttle.pauseLeftMs() > 0);
      this.#throttle.sent(ticket);
      this.stats.requests++;
      const started = performance.now();
      const { status, retryAfter, body } = await this.#send(request);
      this.#logger.debug(
        { path: pathAndQuery, status, bytes: body.length, ms: Math.round(performance.now() - started) },
        'GET',
      );
      if (status < 200 || status > 299) {
        const error = statusError(status, {
          where,
          body: body.toString('utf8'),
          retryAfter,
          redact: this.#redact,
        });
        this.#throttled(ticket, status, error, where);
        throw error;
      }
      this.#throttle.answered();
      const page = readPage(asked, body, this.#scanner);
      if ('problem' in page) throw bodyError(page, where, body.length, this.#redact);
      return page;
    } finally {
      this.#throttle.leave(ticket);
    }
  }

  /** An answer that speaks for the account (a 429, a 503 with Retry-After) acts on every request. */
  #throttled(ticket: Ticket, status: number, error: Error, where: string): void {
    const account = accountSignal(this.#policy, status, error);
    if (!account) return;
    const { pauseBegun, loweredTo } = this.#throttle.signal(ticket, account.pauseMs);
    if (pauseBegun) {
      this.stats.pauses++;
      this.#logger.warn(
        { where, status, pause_ms: account.pauseMs },
        'the service asked to wait: no request goes out until then',
      );
    }
    if (loweredTo !== undefined) {
      this.#logger.warn(
        { where, status, in_flight: loweredTo },
        'throttled again within %d s: fewer requests in flight',
        REPEAT_SPAN_MS / 1_000,
      );
    }
  }

  /** One GET and at most `maxBytes` of its body (else ResponseTooLargeError); typed transport errors. */
  async #send({ pathAndQuery, where, signal, maxBytes }: PageRequest) {
    let response: Awaited<ReturnType<Pool['request']>>;
    try {
      const pool = await this.#openPool();
      response = await pool.request({
        method: 'GET',
        path: pathAndQuery,
        headers: this.#headers,
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw transportError(error, where, this.#redact);
    }
    const tooLarge = (bytes: number) => {
      response.body.destroy();
      return new ResponseTooLargeError(
        `${where} answered with more than ${formatBytes(maxBytes)} (at least ${formatBytes(bytes)}); reading stopped`,
        { bytes, maxBytes },
      );
    };
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(declared);
    const tooSlow = (bytes: number, ms: number) => {
      response.body.destroy();
      return new ProtocolError(
        `the response body of ${where} came slower than ${formatBytes(this.#slowBody.bytesPerSecond)}/s (${formatBytes(bytes)} in ${formatDuration(ms)})`,
        {
          retryable: true,
          hint: 'the service or the network is too slow to finish a page; retried automatically',
        },
      );
    };
    const chunks: Buffer[] = [];
    let length = 0;
    const started = performance.now();
    try {
      for await (const chunk of response.body) {
        length += (chunk as Buffer).length;
        if (length > maxBytes) throw tooLarge(length);
        chunks.push(chunk as Buffer);
        const ms = performance.now() - started;
        if (ms > this.#slowBody.afterMs && length < (this.#slowBody.bytesPerSecond * ms) / 1000)
          throw tooSlow(length, ms);
      }
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      if (error instanceof ResponseTooLargeError) {
        this.stats.bytes += length;
        throw error;
      }
      if (signal?.aborted) throw signal.reason;
      // A broken body on an error status still says enough: keep the status.
      if (response.statusCode < 300) throw transportError(error, where, this.#redact, 'body');
      chunks.length = 0;
      length = 0;
    }
    const body: Buffer = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
    this.stats.bytes += body.length;
    return { status: response.statusCode, retryAfter: response.headers['retry-after'], body };
  }
}

/**
 * The worker's webhook endpoint over real HTTP, with real Redis and a real DuckDB file: the
 * simulator's webhooks start runs that bring their jobs, a burst becomes few runs, and each bad
 * request gets its answer without the secret showing anywhere.
 */
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { resolveWorkerOptions } from '../../../src/cli/commands/worker.js';
import { ConfigError } from '../../../src/errors.js';
import { createLogger } from '../../../src/log.js';
import { acquireWriterLock } from '../../../src/store/file/writer-lock.js';
import { createSyncQueue } from '../../../src/worker/queue.js';
import type { RunningWorker } from '../../../src/worker/runtime.js';
import type { WebhookSettings } from '../../../src/worker/webhook-server.js';
import { onCleanup } from '../../helpers/cleanup.js';
import { runMain } from '../../helpers/cli.js';
import { readCount } from '../../helpers/mirror.js';
import { freePort } from '../../helpers/net.js';
import { redisUrl } from '../../helpers/redis.js';
import { textHits } from '../../helpers/secret-search.js';
import { eventually } from '../../helpers/worker.js';
import { get, NO_REPORT_RUN, options, setup, start } from '../../helpers/worker-in-process.js';

const SECRET = 'wh-0123456789abcdef0123456789abcdef-secret';
const SMALL = { utterancesPerJob: 2, wordsPerUtterance: 2 } as const;

function webhook(overrides: Partial<WebhookSettings> = {}): WebhookSettings {
  return { host: '127.0.0.1', port: 0, secret: SECRET, ratePerSecond: 1_000, ...overrides };
}

function url(running: RunningWorker, secret = SECRET): string {
  return `http://127.0.0.1:${running.webhookPort}/webhook/${secret}`;
}

function post(target: string, body: string | Buffer, headers: Record<string, string> = {}) {
  return fetch(target, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
}

const event = (name: string, id = 'b6f1c3a2-0000-4000-8000-000000000001') =>
  JSON.stringify({ event: name, payload: { id } });

/** tsync_runs_total of the kind's incremental runs that ended ok. */
async function okRuns(running: RunningWorker, kind: string): Promise<number> {
  const text = (await get(running, '/metrics')).body;
  const line = new RegExp(`tsync_runs_total\\{kind="${kind}",mode="incremental",outcome="ok"\\} (\\d+)`);
  return Number(line.exec(text)?.[1] ?? 0);
}

function collected(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

/** What the server at `port` sends back to `request`, written raw (no client would send it), until it closes. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

/** The lines of a JSON log at error level (pino's 50) or above. */
const errorLines = (log: string) => log.split('\n').filter((line) => /"level":(50|60)/.test(line));

/** A worker with a webhook port whose every line, debug too, the test reads. */
async function startLogged() {
  const { sim, prefix, db } = await setup({ preRecorded: 1, live: 1, ...SMALL });
  const log = collected();
  const logger = createLogger('debug', {}, { stream: log.stream });
  const running = await start({
    ...options(sim, db, prefix, { logger, every: NO_REPORT_RUN }),
    webhook: webhook(),
  });
  return { log, running };
}

describe('the webhook endpoint', () => {
  it('syncs a job an event announces, and a processing job once its success event comes, re-checking it alone', async () => {
    // Created within the pending re-check's reach (--pending-max-age 7d), a page of 20 each. The
    // events are of pre-recorded jobs: a worker of that kind alone.
    const now = Date.now();
    const { sim, prefix, db } = await setup({
      preRecorded: 45,
      live: 0,
      ...SMALL,
      from: new Date(now - 86_400_000),
      to: new Date(now - 60_000),
    });
    const running = await start({
      ...options(sim, db, prefix, { kinds: ['pre-recorded'] }),
      webhook: webhook(),
    });
    await eventually(async () => (await okRuns(running, 'pre-recorded')) >= 1, 'the first run');
    const processing = sim.data
      .all()
      .filter((r) => r['kind'] === 'pre-recorded' && r['status'] === 'processing')
      .at(-1);
    if (!processing) throw new Error('the account has no processing pre-recorded job');
    // As the service posts them: the id only.
    const added = sim.data.add({ kind: 'pre-recorded', status: 'done' });
    expect((await post(url(running), event('transcription.created', String(added['id'])))).status).toBe(202);
    await eventually(
      async () => (await okRuns(running, 'pre-recorded')) >= 2,
      'the run the created event queued',
    );
    sim.data.advance(String(processing['id']), 'done');
    expect((await post(url(running), event('transcription.success', String(processing['id'])))).status).toBe(
      202,
    );
    await eventually(
      async () => (await okRuns(running, 'pre-recorded')) >= 3,
      'the run the success event queued',
    );
    await running.stop();

    const done = (id: unknown) => `SELECT count(*) FROM jobs WHERE id = '${String(id)}' AND status = 'done'`;
    expect(await readCount(db, done(added['id']))).toBe(1);
    expect(await readCount(db, done(processing['id']))).toBe(1);
    // The success event's run listed the new page and the re-check's window, not the history.
    const fetched = await readCount(
      db,
      "SELECT jobs_fetched FROM sync_runs WHERE kind = 'pre-recorded' ORDER BY started_at DESC LIMIT 1",
    );
    expect(fetched).toBeGreaterThan(0);
    expect(fetched).toBeLessThan(20);
  });

  it('measures the seconds from completion upstream to the commit, in /metrics and in status', async () => {
    // A job arrives every 250 ms and settles within 300 ms; the simulator posts each change. The
    // figures read are pre-recorded's: a worker of that kind alone (the live events are answered 204).
    const port = await freePort();
    const { sim, prefix, db } = await setup({
      preRecorded: 4,
      live: 2,
      ...SMALL,
      grow: { jobsPerMinute: 240, settleMs: 300, deleteShare: 0 },
      webhookUrl: `http://127.0.0.1:${port}/webhook/${SECRET}`,
    });
    const running = await start({
      ...options(sim, db, prefix, { kinds: ['pre-recorded'] }),
      webhook: webhook({ port }),
    });
    const count = async () => {
      const text = (await get(running, '/metrics')).body;
      return Number(/tsync_freshness_seconds_count\{kind="pre-recorded"\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    await eventually(async () => (await count()) >= 3, 'three jobs brought in done or failed');
    await sim.close();
    expect(sim.webhooks?.sent()).toBeGreaterThan(3);
    await running.stop();

    const status = await runMain(['status', '--json', '--db', db]);
    expect(status.code, status.stderr).toBe(0);
    const row = (JSON.parse(status.stdout) as Record<string, unknown>[]).find(
      (r) => r['kind'] === 'pre-recorded',
    );
    expect(row?.['fresh_p50_s']).toEqual(expect.any(Number));
    expect(Number(row?.['fresh_p95_s'])).toBeGreaterThanOrEqual(Number(row?.['fresh_p50_s']));
    expect(Number(row?.['fresh_p50_s'])).toBeGreaterThanOrEqual(0);
  });

  it('turns a burst of events into at most one running and one queued run, none past the file lock', async () => {
    const { sim, prefix, db } = await setup({ preRecorded: 5, live: 3, ...SMALL });
    const base = options(sim, db, prefix);
    // Runs wait for a file another writer holds (no put-back within the test).
    const running = await start({
      ...base,
      settings: { ...base.settings, lockWait: 60_000 },
      webhook: webhook(),
    });
    await eventually(async () => (await okRuns(running, 'pre-recorded')) >= 1, 'the first run');
    await eventually(async () => (await okRuns(running, 'live')) >= 1, 'the first live run');
    const before = await okRuns(running, 'pre-recorded');
    const held = acquireWriterLock({ db, command: 'sync' });
    onCleanup(async () => held.release());

    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => post(url(running), event('transcription.success', `job-${i}`))),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 202));
    const metrics = (await get(running, '/metrics')).body;
    const queued = Number(/tsync_webhook_requests_total\{answer="queued"\} (\d+)/.exec(metrics)?.[1]);
    const coalesced = Number(/tsync_webhook_requests_total\{answer="coalesced"\} (\d+)/.exec(metrics)?.[1]);
    expect(queued + coalesced).toBe(60);
    // One queued while none waits; once it runs (held at the lock), one more behind it, no more.
    expect(queued).toBeGreaterThanOrEqual(1);
    expect(queued).toBeLessThanOrEqual(2);
    expect(await okRuns(running, 'pre-recorded')).toBe(before);

    held.release();
    await eventually(
      async () => (await okRuns(running, 'pre-recorded')) >= before + queued,
      'the queued runs',
    );
    expect(await okRuns(running, 'pre-recorded')).toBe(before + queued);
    expect(await okRuns(running, 'live')).toBe(1);
  });

  it('keeps one event run of a kind waiting put back while the file stays busy, however many events come', async () => {
    const { sim, prefix, db } = await setup({ preRecorded: 2, live: 3, ...SMALL });
    const base = options(sim, db, prefix, { kinds: ['live'], putBackMs: 60_000 });
    const running = await start({
      ...base,
      settings: { ...base.settings, lockWait: 100 },
      webhook: webhook(),
    });
    await eventually(async () => (await okRuns(running, 'live')) >= 1, 'the first run');
    const held = acquireWriterLock({ db, command: 'sync' });
    onCleanup(async () => held.release());
    const busy = async () => {
      const text = (await get(running, '/metrics')).body;
      return Number(/tsync_file_busy_total\{queue_job="sync"\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    // Each event comes once the run the one before queued has found the file busy.
    for (let i = 1; i <= 4; i++) {
      expect((await post(url(running), event('live.ended', `job-${i}`))).status).toBe(202);
      await eventually(async () => (await busy()) >= i, `event run ${i} finding the file busy`);
    }
    const queue = createSyncQueue(redisUrl(), prefix);
    onCleanup(() => queue.close());
    const eventRuns = async (states: ('active' | 'waiting' | 'delayed')[]) =>
      (await queue.getJobs(states)).filter((job) => job.id?.startsWith('event-')).length;
    await eventually(async () => (await eventRuns(['active'])) === 0, 'the last event run to end');
    // The run put back first does the work of every event that came after it.
    expect(await eventRuns(['waiting', 'delayed'])).toBe(1);
  });

  it('answers a wrong secret 404, an oversize body 413, malformed JSON 400, an unknown event 204, a flood 429, and never shows the secret', async () => {
    const { sim, prefix, db } = await setup({ preRecorded: 2, live: 2, ...SMALL });
    const log = collected();
    const logger = createLogger('debug', {}, { stream: log.stream });
    // The answers are the endpoint's own, none of them queues a run: incremental runs once a year
    // (a cron, which does not run as the worker starts), so the worker syncs nothing meanwhile.
    const running = await start({
      ...options(sim, db, prefix, { logger, every: NO_REPORT_RUN }),
      webhook: webhook({ ratePerSecond: 5 }),
    });
    const base = `http://127.0.0.1:${running.webhookPort}`;

    const wrong = await post(url(running, `${SECRET.slice(0, -1)}x`), event('transcription.success'));
    const none = await post(`${base}/webhook/`, event('transcription.success'));
    const elsewhere = await post(`${base}/metrics`, event('transcription.success'));
    expect([wrong.status, none.status, elsewhere.status]).toEqual([404, 404, 404]);
    const bodies = await Promise.all([wrong.text(), none.text(), elsewhere.text()]);
    expect(new Set(bodies)).toEqual(new Set(['not found\n']));

    const oversize = await post(url(running), Buffer.alloc(65 * 1024, 'a'));
    expect(oversize.status).toBe(413);
    const malformed = await post(url(running), '{"event": "transcription.success"');
    expect(malformed.status).toBe(400);
    const unknown = await post(url(running), event('account.updated'));
    expect(unknown.status).toBe(204);

    // Five a second from one address, a burst of five: the rest of twenty back to back are refused.
    const flood: number[] = [];
    for (let i = 0; i < 20; i++) flood.push((await post(url(running), event('account.updated'))).status);
    expect(flood).toContain(429);
    expect(flood.filter((s) => s !== 204 && s !== 429)).toEqual([]);

    const metrics = (await get(running, '/metrics')).body;
    expect(metrics).toMatch(/tsync_webhook_requests_total\{answer="unknown_event"\} [1-9]/);
    expect(metrics).toContain('tsync_webhook_requests_total{answer="not_found"} 3');
    expect(metrics).toContain('tsync_webhook_requests_total{answer="too_large"} 1');
    expect(metrics).toContain('tsync_webhook_requests_total{answer="malformed"} 1');
    await running.stop();
    expect(log.text()).toContain('serving POST /webhook/<secret>');
    expect(textHits(log.text(), SECRET)).toEqual([]);
    expect(textHits(metrics, SECRET)).toEqual([]);
  });

  it('answers a wrong secret 404, a wrong method 405 and a flood 429 when the body is over 64 KB too', async () => {
    const { sim, prefix, db } = await setup({ preRecorded: 1, live: 1, ...SMALL });
    const running = await start({
      ...options(sim, db, prefix, { every: NO_REPORT_RUN }),
      webhook: webhook({ ratePerSecond: 0.5 }),
    });
    const big = Buffer.alloc(65 * 1024, 'a');
    const wrong = await post(url(running, `${SECRET.slice(0, -1)}x`), big);
    expect([wrong.status, await wrong.text()]).toEqual([404, 'not found\n']);
    const put = await fetch(url(running), { method: 'PUT', body: big });
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'POST']);
    expect((await post(url(running), event('account.updated'))).status).toBe(204);
    const flooded = await post(url(running), big);
    expect([flooded.status, flooded.headers.get('retry-after')]).toEqual([429, '1']);
    const metrics = (await get(running, '/metrics')).body;
    expect(metrics).toContain('tsync_webhook_requests_total{answer="not_found"} 1');
    expect(metrics).toContain('tsync_webhook_requests_total{answer="rate_limited"} 1');
  });

  it('answers a request target that is no URL 404 on the webhook port and on the metrics port, without an error line', async () => {
    const { log, running } = await startLogged();
    const webhookPort = running.webhookPort ?? 0;
    for (const target of ['http://[/', '//[', `http://%/webhook/${SECRET}`]) {
      const request = `POST ${target} HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}`;
      expect(await raw(webhookPort, request)).toMatch(/^HTTP\/1\.1 404 [\s\S]*\r\n\r\nnot found\n$/);
      const scrape = `GET ${target} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`;
      expect(await raw(running.metricsPort, scrape)).toMatch(/^HTTP\/1\.1 404 /);
    }
    expect((await get(running, '/metrics')).body).toContain(
      'tsync_webhook_requests_total{answer="not_found"} 3',
    );
    await running.stop();
    expect(errorLines(log.text())).toEqual([]);
  });

  it('drops a request whose client leaves mid-body, and stops with one still arriving, without an error line', async () => {
    const { log, running } = await startLogged();
    const head = `POST /webhook/${SECRET} HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{"event":`;
    const partial = () =>
      new Promise<Socket>((resolve) => {
        const socket = connect(running.webhookPort ?? 0, '127.0.0.1', () =>
          socket.write(head, () => resolve(socket)),
        );
        socket.on('error', () => {});
      });
    const left = await partial();
    left.destroy();
    await new Promise((resolve) => left.once('close', resolve));
    // The worker reads what came of the first before it stops with the second still arriving.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await partial();
    await running.stop();
    expect(errorLines(log.text())).toEqual([]);
  });

  it('takes one request every other second from an address at --webhook-rate 0.5', async () => {
    const { sim, prefix, db } = await setup({ preRecorded: 1, live: 1, ...SMALL });
    const running = await start({
      ...options(sim, db, prefix, { every: NO_REPORT_RUN }),
      webhook: webhook({ ratePerSecond: 0.5 }),
    });
    const first = await post(url(running), event('account.updated'));
    const second = await post(url(running), event('account.updated'));
    expect([first.status, second.status]).toEqual([204, 429]);
  });

  it('refuses a webhook port that is taken with one line naming --webhook-port', async () => {
    // Another listener on 127.0.0.1 holds the port, as another worker's webhook endpoint would.
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    onCleanup(() => new Promise<void>((resolve) => holder.close(() => resolve())));
    const { port } = holder.address() as AddressInfo;
    const { sim, prefix, db } = await setup({ preRecorded: 1, live: 1, ...SMALL });
    await expect(start({ ...options(sim, db, prefix), webhook: webhook({ port }) })).rejects.toThrow(
      /--webhook-port/,
    );
  });

  it('refuses a short secret with one line naming the fix, without the secret, and masks it in config show', async () => {
    const env = {
      TSYNC_API_KEY: 'k',
      TSYNC_BASE_URL: 'http://127.0.0.1:9',
      REDIS_URL: 'redis://127.0.0.1:9',
      TSYNC_DB: '/srv/mirror/t.duckdb',
      TSYNC_WEBHOOK_PORT: '8790',
      TSYNC_WEBHOOK_SECRET: 'short-secret-x',
    };
    const sink = collected().stream;
    let refused: unknown;
    try {
      resolveWorkerOptions({}, env, sink);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ConfigError);
    const message = (refused as ConfigError).message;
    expect(message).toMatch(/^TSYNC_WEBHOOK_SECRET: .*at least 32 .*openssl rand -hex 32$/);
    expect(message).not.toContain('short-secret-x');
    expect((refused as ConfigError).exitCode).toBe(2);
    // Long enough, but a '/' would end the path's segment.
    expect(() => resolveWorkerOptions({}, { ...env, TSYNC_WEBHOOK_SECRET: `${SECRET}/x` }, sink)).toThrow(
      /it holds other characters/,
    );

    const { options: resolved } = resolveWorkerOptions({}, { ...env, TSYNC_WEBHOOK_SECRET: SECRET }, sink);
    expect(resolved.webhook).toMatchObject({ port: 8790, host: '127.0.0.1', ratePerSecond: 50 });
    const { options: off } = resolveWorkerOptions({}, { ...env, TSYNC_WEBHOOK_PORT: '' }, sink);
    expect(off.webhook).toBeUndefined();

    const { describeSettings } = await import('../../../src/config/describe.js');
    const shown = JSON.stringify(describeSettings({}, { ...env, TSYNC_WEBHOOK_SECRET: SECRET }));
    expect(shown).toContain('TSYNC_WEBHOOK_SECRET');
    expect(textHits(shown, SECRET)).toEqual([]);
  });
});

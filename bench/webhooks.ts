/**
 * `npm run bench:webhooks`: the worker's webhook endpoint, with a `transcript-sync worker` child
 * process, a throwaway redis-server (or REDIS_URL) and the simulator in this process.
 * 1. Freshness: a growing account finishing a job every 100 ms on average (600 arrivals a minute,
 *    each done or failed within a second) for `--minutes`, twice side by side: the worker with the
 *    simulator posting its webhooks (`--every 5m`), and the worker on a schedule alone (`--every`
 *    the interval given). Figures: p50 and p95 of the seconds from completed_at to the write, of
 *    the jobs of that window, as `status` reads them, and the runs each made.
 * 2. Flood: `--flood-rate` events a second for `--flood-seconds` from one address (nine in ten for
 *    a kind, one in ten unknown) at a worker whose --webhook-rate lets them all through, then at
 *    one with the default rate. Figures: the answers by status (every request answered?), the most
 *    runs active and waiting at once (sampled every 50 ms), the runs made, and peak RSS (VmHWM)
 *    against the memory budget.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSimulator } from '../src/simulator/index.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'transcript-sync');
const SECRET = 'bench0123456789abcdef0123456789abcdef';
const say = (line: string) => process.stderr.write(`[bench:webhooks] ${line}\n`);

interface Options {
  readonly minutes: number;
  readonly every: string;
  readonly floodRate: number;
  readonly floodSeconds: number;
}

function parseOptions(argv: readonly string[]): Options {
  const value = (flag: string, fallback: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? (argv[at + 1] ?? fallback) : fallback;
  };
  return {
    minutes: Number(value('--minutes', '1')),
    every: value('--every', '30s'),
    floodRate: Number(value('--flood-rate', '1000')),
    floodSeconds: Number(value('--flood-seconds', '10')),
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function redisServer(dir: string): Promise<{ url: string; stop: () => void }> {
  const fromEnv = process.env['REDIS_URL'];
  if (fromEnv) return { url: fromEnv, stop: () => {} };
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  await sleep(500);
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

interface Worker {
  readonly child: ChildProcess;
  readonly metricsPort: number;
  readonly webhookPort: number;
  stop(): Promise<void>;
}

async function startWorker(env: Record<string, string>, args: readonly string[]): Promise<Worker> {
  const metricsPort = await freePort();
  const webhookPort = await freePort();
  const child = spawn(process.execPath, [BIN, 'worker', ...args], {
    env: {
      PATH: process.env['PATH'] ?? '',
      TSYNC_LOG_LEVEL: 'warn',
      TSYNC_METRICS_PORT: String(metricsPort),
      TSYNC_WEBHOOK_PORT: String(webhookPort),
      TSYNC_WEBHOOK_SECRET: SECRET,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  for (let tries = 0; tries < 200; tries++) {
    if ((await metric(metricsPort, 'tsync_queue_jobs_readable')) === 1) break;
    await sleep(100);
  }
  return {
    child,
    metricsPort,
    webhookPort,
    stop: async () => {
      child.kill('SIGTERM');
      await closed;
    },
  };
}

/** The sum of a metric's samples whose labels include `labels`; NaN when unreadable. */
async function metric(port: number, name: string, labels = ''): Promise<number> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    let sum = Number.NaN;
    for (const line of text.split('\n')) {
      if (!line.startsWith(name) || !(line[name.length] === ' ' || line[name.length] === '{')) continue;
      if (labels !== '' && !line.includes(labels)) continue;
      sum = (Number.isNaN(sum) ? 0 : sum) + Number(line.slice(line.lastIndexOf(' ') + 1));
    }
    return sum;
  } catch {
    return Number.NaN;
  }
}

function peakRss(pid: number | undefined): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  return Number(line?.split(/\s+/)[1] ?? Number.NaN) * 1024;
}

function status(db: string): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'status', '--json', '--db', db], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as Record<string, unknown>[])
        : reject(new Error(`status ${code}`)),
    );
  });
}

interface FreshnessRow {
  readonly mode: string;
  readonly p50: unknown;
  readonly p95: unknown;
  readonly runs: number;
  readonly webhooks: number;
}

async function freshness(
  mode: 'webhooks' | 'schedule',
  options: Options,
  redisUrl: string,
  dir: string,
): Promise<FreshnessRow> {
  const db = join(dir, `freshness-${mode}.duckdb`);
  const webhookPort = await freePort();
  const sim = await startSimulator({
    preRecorded: 100,
    live: 100,
    utterancesPerJob: 4,
    wordsPerUtterance: 6,
    to: new Date(Date.now() - 60_000),
    grow: { jobsPerMinute: 600, settleMs: 1_000, deleteShare: 0 },
    keepLog: false,
    ...(mode === 'webhooks' ? { webhookUrl: `http://127.0.0.1:${webhookPort}/webhook/${SECRET}` } : {}),
  });
  const env = {
    TSYNC_BASE_URL: sim.url,
    TSYNC_API_KEY: sim.apiKey,
    TSYNC_DB: db,
    REDIS_URL: redisUrl,
    TSYNC_REDIS_PREFIX: `bench-webhooks-${mode}-${Date.now()}`,
    TSYNC_RATE_LIMIT: '1000',
  };
  const every = mode === 'webhooks' ? '5m' : options.every;
  const worker = await startWorker({ ...env, TSYNC_WEBHOOK_PORT: String(webhookPort) }, ['--every', every]);
  // The first run back-fills the history; the window measured starts after it.
  for (let tries = 0; tries < 600; tries++) {
    if ((await metric(worker.metricsPort, 'tsync_runs_total', 'outcome="ok"')) >= 2) break;
    await sleep(100);
  }
  say(`${mode}: back-filled; measuring ${options.minutes} min`);
  await sleep(options.minutes * 60_000);
  const runs = await metric(worker.metricsPort, 'tsync_runs_total');
  await worker.stop();
  const webhooks = sim.webhooks?.sent() ?? 0;
  await sim.close();
  const rows = await status(db);
  const pre = rows.find((r) => r['kind'] === 'pre-recorded');
  return {
    mode: `${mode} (--every ${every})`,
    p50: pre?.['fresh_p50_s'],
    p95: pre?.['fresh_p95_s'],
    runs,
    webhooks,
  };
}

interface FloodRow {
  readonly rate: string;
  readonly sent: number;
  readonly answers: Record<string, number>;
  readonly unanswered: number;
  readonly maxQueued: number;
  readonly runs: number;
  readonly peakRssMb: number;
}

async function flood(
  options: Options,
  redisUrl: string,
  dir: string,
  webhookRate: string,
): Promise<FloodRow> {
  const sim = await startSimulator({
    preRecorded: 200,
    live: 100,
    utterancesPerJob: 4,
    wordsPerUtterance: 6,
  });
  const worker = await startWorker(
    {
      TSYNC_BASE_URL: sim.url,
      TSYNC_API_KEY: sim.apiKey,
      TSYNC_DB: join(dir, `flood-${webhookRate}.duckdb`),
      REDIS_URL: redisUrl,
      TSYNC_REDIS_PREFIX: `bench-webhooks-flood-${Date.now()}`,
      TSYNC_WEBHOOK_RATE: webhookRate,
    },
    ['--every', '5m'],
  );
  for (let tries = 0; tries < 600; tries++) {
    if ((await metric(worker.metricsPort, 'tsync_runs_total', 'outcome="ok"')) >= 2) break;
    await sleep(100);
  }
  const runsBefore = await metric(worker.metricsPort, 'tsync_runs_total');
  let maxQueued = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const waiting = await metric(worker.metricsPort, 'tsync_queue_jobs', 'state="waiting"');
      const active = await metric(worker.metricsPort, 'tsync_queue_jobs', 'state="active"');
      if (Number.isFinite(waiting + active)) maxQueued = Math.max(maxQueued, waiting + active);
      await sleep(50);
    }
  })();
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const answers: Record<string, number> = {};
  const pending: Promise<void>[] = [];
  const total = options.floodRate * options.floodSeconds;
  const events = [
    'transcription.success',
    'transcription.created',
    'live.end_session',
    'transcription.error',
  ];
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1_000) / options.floodRate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const event = i % 10 === 9 ? 'account.updated' : (events[i % events.length] as string);
    pending.push(
      post(agent, worker.webhookPort, event).then((code) => {
        answers[code] = (answers[code] ?? 0) + 1;
      }),
    );
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - started) / 1_000;
  // The runs queued by the flood finish; then the count.
  await sleep(3_000);
  sampling = false;
  await sampler;
  const runs = (await metric(worker.metricsPort, 'tsync_runs_total')) - runsBefore;
  const rss = peakRss(worker.child.pid);
  await worker.stop();
  agent.destroy();
  await sim.close();
  const answered = ['202', '204', '429'].reduce((n, code) => n + (answers[code] ?? 0), 0);
  say(`flood at --webhook-rate ${webhookRate}: ${total} sent in ${elapsed.toFixed(1)} s`);
  return {
    rate: webhookRate,
    sent: total,
    answers,
    unanswered: total - answered,
    maxQueued,
    runs,
    peakRssMb: Math.round(rss / 1e6),
  };
}

function post(agent: Agent, port: number, event: string): Promise<string> {
  const body = JSON.stringify({ event, payload: { id: '45463597-20b7-4af7-b3b3-f5fb778203ab' } });
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: `/webhook/${SECRET}`,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(String(response.statusCode)));
      },
    );
    req.on('error', (error) => resolve(`error ${(error as NodeJS.ErrnoException).code ?? error.message}`));
    req.end(body);
  });
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), 'tsync-bench-webhooks-'));
  const redis = await redisServer(dir);
  try {
    const fresh = [
      await freshness('webhooks', options, redis.url, dir),
      await freshness('schedule', options, redis.url, dir),
    ];
    const floods = [
      await flood(options, redis.url, dir, '100000'),
      await flood(options, redis.url, dir, '50'),
    ];
    const out: string[] = [];
    out.push(`Freshness, ${options.minutes} min, a job finished every 100 ms on average:`, '');
    out.push('| worker | p50 s | p95 s | runs | webhooks posted |', '|---|---|---|---|---|');
    for (const r of fresh) out.push(`| ${r.mode} | ${r.p50} | ${r.p95} | ${r.runs} | ${r.webhooks} |`);
    out.push('', `Flood, ${options.floodRate} events/s for ${options.floodSeconds} s from one address:`, '');
    out.push(
      '| --webhook-rate | sent | answers | unanswered | most runs active+waiting | runs | peak RSS MB |',
      '|---|---|---|---|---|---|---|',
    );
    for (const f of floods) {
      const answers = Object.entries(f.answers)
        .map(([code, n]) => `${code}: ${n}`)
        .join(', ');
      out.push(
        `| ${f.rate} | ${f.sent} | ${answers} | ${f.unanswered} | ${f.maxQueued} | ${f.runs} | ${f.peakRssMb} |`,
      );
    }
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

/**
 * Log lines: JSON off a terminal with every key once (child bindings never repeat a parent's),
 * every field named by one rule, human-readable lines on a terminal, one error line per failure.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import { startSimulator } from '../../src/simulator/index.js';
import { openWriter } from '../../src/store/open-file.js';
import { BIN, runCli, runMain } from '../helpers/cli.js';
import { redisUrl, uniquePrefix } from '../helpers/redis.js';
import { tempDir } from '../helpers/tmp.js';
import { NO_REPORT, onCleanup, spawnCli, testRedis } from '../helpers/worker.js';

/** The keys of a JSON object line at its top level, in order, duplicates included. */
function topLevelKeys(line: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i];
    if (c === '"') {
      let j = i + 1;
      while (line[j] !== '"') j += line[j] === '\\' ? 2 : 1;
      if (depth === 1 && expectKey) keys.push(line.slice(i + 1, j));
      expectKey = false;
      i = j;
    } else if (c === '{' || c === '[') {
      depth += 1;
      expectKey = depth === 1;
    } else if (c === '}' || c === ']') depth -= 1;
    else if (c === ',' && depth === 1) expectKey = true;
  }
  return keys;
}

const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
/** Words that name a span of time: a number under such a key must say its unit. */
const TIME_WORD =
  /(^|_)(delay|timeout|every|elapsed|duration|wait|age|interval|window|lookback|after|down|took)(_|$)/;
const UNIT = /(^|_)(ms|seconds|bytes)$/;

/**
 * What breaks the field rule (docs/configuration.md, What the program prints) in one parsed log line, at any depth: every key is
 * snake_case, and a number that measures time carries its unit as the key's last word (`delay_ms`).
 */
function fieldProblems(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => fieldProblems(item, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const at = path ? `${path}.${key}` : key;
    const own: string[] = [];
    if (!SNAKE.test(key)) own.push(`${at}: not snake_case`);
    if (typeof inner === 'number' && TIME_WORD.test(key) && !UNIT.test(key))
      own.push(`${at}: a time without its unit in the name`);
    return [...own, ...fieldProblems(inner, at)];
  });
}

/** The JSON log lines of a stderr text, parsed. */
function logEntries(stderr: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function capture(isTTY: boolean) {
  let text = '';
  const stream = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString();
        done();
      },
    }),
    { isTTY },
  );
  return { stream, text: () => text };
}

describe('logs', () => {
  it('are JSON off a terminal and one readable line per entry on a terminal', () => {
    const json = capture(false);
    createLogger('info', {}, { stream: json.stream }).warn(
      { kind: 'live', err: new Error('boom') },
      'it failed',
    );
    const entry = JSON.parse(json.text());
    expect(entry).toMatchObject({ level: 40, kind: 'live', msg: 'it failed' });

    const tty = capture(true);
    createLogger('info', {}, { stream: tty.stream }).warn(
      { kind: 'live', err: new Error('boom') },
      'it failed',
    );
    const ESC = String.fromCharCode(27);
    const plain = tty.text().replaceAll(`${ESC}[33m`, '<yellow>').replaceAll(`${ESC}[0m`, '</yellow>');
    expect(plain).toMatch(
      /^\d{2}:\d{2}:\d{2}\.\d{3} <yellow>WARN <\/yellow> it failed kind=live err="boom"\n$/,
    );
  });

  it("write an error's own fields by the same rule", () => {
    const json = capture(false);
    const error = new RateLimitedError({ retryAfterMs: 1_500 });
    createLogger('info', {}, { stream: json.stream }).warn({ err: error }, 'rate limited');
    const entry = JSON.parse(json.text());
    expect(entry.err).toMatchObject({ retry_after_ms: 1_500, exit_code: 1, code: 'RATE_LIMITED' });
    expect(fieldProblems(entry)).toEqual([]);
  });

  it('the worker writes every key once per line, job and api fields side by side', async () => {
    const sim = await startSimulator({ preRecorded: 4, live: 4 });
    onCleanup(() => sim.close());
    const prefix = uniquePrefix('logs');
    testRedis(prefix);
    const worker = spawnCli(['worker', '--metrics-port', '0', '--every', '1h', ...NO_REPORT], {
      TSYNC_BASE_URL: sim.url,
      TSYNC_API_KEY: sim.apiKey,
      TSYNC_DB: join(tempDir(), 'logs.duckdb'),
      REDIS_URL: redisUrl(),
      TSYNC_REDIS_PREFIX: prefix,
      TSYNC_LOG_LEVEL: 'debug',
      TSYNC_PAGE_SIZE: '2',
    });
    const seen = new Set<string>();
    await worker.waitForLog((l) => {
      if (l['msg'] === 'sync finished') seen.add(String((l['kinds'] as { kind: string }[])[0]?.kind));
      return seen.size === 2;
    });
    worker.process.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    const lines = worker.stderr().trim().split('\n');
    for (const line of lines) {
      const keys = topLevelKeys(line);
      expect(new Set(keys).size, line).toBe(keys.length);
    }
    const entries = logEntries(worker.stderr());
    expect(entries.map((l) => l['msg'])).toEqual(
      expect.arrayContaining([
        'worker started',
        'job started',
        'shutting down: the run in hand commits and checkpoints first',
      ]),
    );
    expect(entries.flatMap((l) => fieldProblems(l))).toEqual([]);
    const api = entries.filter((l) => l['component'] === 'api');
    expect(api.length).toBeGreaterThan(0);
    expect(api.some((l) => typeof l['job_attempt'] === 'number' && typeof l['job_id'] === 'string')).toBe(
      true,
    );
  });

  it('a sync names every field of every line by one rule: snake_case, units in the name', async () => {
    const sim = await startSimulator({ preRecorded: 6, live: 6 });
    onCleanup(() => sim.close());
    sim.faults.retryAfter = '0';
    sim.faults.inject('429', '503');
    const dir = tempDir();
    const run = (args: string[]) =>
      runMain(['sync', '--db', join(dir, 'fields.duckdb'), '--page-size', '2', ...args], {
        TSYNC_BASE_URL: sim.url,
        TSYNC_API_KEY: sim.apiKey,
        TSYNC_LOG_LEVEL: 'debug',
      });
    const first = await run(['--publish', join(dir, 'dataset')]);
    expect(first.code, first.stderr).toBe(0);
    const full = await run(['--full']);
    expect(full.code, full.stderr).toBe(0);
    const entries = logEntries(first.stderr + full.stderr);
    expect(entries.map((l) => l['msg'])).toEqual(
      expect.arrayContaining(['request failed, retrying', 'GET', 'progress', 'database schema migrated']),
    );
    expect(entries.flatMap((l) => fieldProblems(l))).toEqual([]);
  });

  it("off a terminal a sync's stderr is JSON lines only, its summary and closing error among them", async () => {
    const sim = await startSimulator({
      preRecorded: 4,
      live: 1,
      recordPadding: { kind: 'live', bytes: 1_200_000 },
    });
    onCleanup(() => sim.close());
    sim.faults.setRandom({ rate: 1, kinds: ['malformed-record'] });
    const dir = tempDir();
    const env = { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey };
    const db = join(dir, 'pipe.duckdb');
    const jsonOnly = (stderr: string) => {
      const lines = stderr.trim().split('\n');
      for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
      return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    };

    const ok = await runCli(
      ['sync', '--db', db, '--kind', 'pre-recorded', '--publish', join(dir, 'dataset')],
      env,
    );
    expect(ok.code, ok.stderr).toBe(0);
    const entries = jsonOnly(ok.stderr);
    expect(entries).toContainEqual(
      expect.objectContaining({ level: 30, kind: 'pre-recorded', outcome: 'ok', jobs_fetched: 4 }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ msg: expect.stringMatching(/^published to /), written: expect.any(Number) }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ level: 40, msg: expect.stringMatching(/records? failed validation/) }),
    );

    sim.faults.clear();
    const failed = await runCli(
      ['sync', '--db', db, '--kind', 'live', '--max-record-bytes', '1MiB', '--page-bytes', '256KiB'],
      env,
    );
    expect(failed.code, failed.stderr).toBe(1);
    const closing = jsonOnly(failed.stderr).at(-1);
    expect(closing).toMatchObject({
      level: 50,
      exit_code: 1,
      msg: expect.stringMatching(/^transcript-sync: a live record is larger/),
    });

    const usage = await runMain(['sync', '--db', db, '--since', '2999-01-01'], env);
    expect(usage.code).toBe(2);
    expect(jsonOnly(usage.stderr)).toEqual([
      expect.objectContaining({
        level: 50,
        code: 'CONFIG',
        exit_code: 2,
        msg: expect.stringMatching(/--since: is in the future/),
      }),
    ]);
  });

  it('a failed sync on a terminal prints readable lines and its reason once as an error', async () => {
    // Every request is refused with a 429 whose Retry-After says to come back at once: all six tries
    // and the failure, without the seconds of backoff a refused connection sleeps between them.
    const sim = await startSimulator({ preRecorded: 0, live: 3 });
    onCleanup(() => sim.close());
    sim.faults.retryAfter = '0';
    sim.faults.setRandom({ rate: 1, kinds: ['429'], seed: 1 });
    const db = join(tempDir(), 'tty.duckdb');
    // A file that exists: the run goes to the kind's walk (a first run stops at its check of the service).
    await (await openWriter(db)).close();
    const command = `${process.execPath} ${BIN} sync --kind live --db ${db}`;
    // Not spawnSync: the simulator answers from this process's event loop.
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: {
        PATH: process.env['PATH'],
        HOME: process.env['HOME'],
        TSYNC_API_KEY: sim.apiKey,
        TSYNC_BASE_URL: sim.url,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onCleanup(async () => void child.kill('SIGKILL'));
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await new Promise((resolve) => child.once('close', resolve));
    expect(out).toMatch(/\d{2}:\d{2}:\d{2}\.\d{3} .*WARN .* request failed, retrying/);
    expect(out.split('\n').filter((l) => l.trimStart().startsWith('{"level"'))).toEqual([]);
    expect(out.split('\n').filter((l) => /ERROR/.test(l))).toEqual([]);
    expect(out.match(/live: FAILED \(/g)).toHaveLength(1);
  });
});

/**
 * Log lines: JSON off a terminal with every key once (child bindings never repeat a parent's),
 * human-readable lines on a terminal, one error line per failure.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/log.js';
import { startSimulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { BIN } from './helpers/cli.js';
import { redisUrl, uniquePrefix } from './helpers/redis.js';
import { tempDir } from './helpers/tmp.js';
import { onCleanup, spawnCli, testRedis } from './helpers/worker.js';

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

  it('the worker writes every key once per line, job and api fields side by side', async () => {
    const sim = await startSimulator({ preRecorded: 4, live: 4 });
    onCleanup(() => sim.close());
    const prefix = uniquePrefix('logs');
    testRedis(prefix);
    const worker = spawnCli(['worker', '--metrics-port', '0', '--every', '1h'], {
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
    const api = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l['component'] === 'api');
    expect(api.length).toBeGreaterThan(0);
    expect(api.some((l) => typeof l['job_attempt'] === 'number' && typeof l['job_id'] === 'string')).toBe(
      true,
    );
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
    await (await Database.open(db)).close();
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

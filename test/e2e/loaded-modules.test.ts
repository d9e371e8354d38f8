/**
 * A command loads what it runs. The built program is started with a module hook that notes every
 * module it loads: an idle `sync` and the commands that only may talk to Redis (`worker --help`,
 * `enqueue --help`, `state show` without REDIS_URL) load neither Redis, BullMQ, prom-client nor
 * the AWS SDK, and the sync none of the worker's modules nor the dataset's writers; a command that
 * only reads the file (`status`, `state show`) does not load the HTTP client's undici either.
 * .dependency-cruiser.cjs holds the static side of the rule for Redis.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { BIN, type CliResult, childEnv, runMain } from '../helpers/cli.js';
import { fileTempDir, tempDir } from '../helpers/tmp.js';

/** Packages a command loads only when it talks to Redis, serves the worker's metrics, or publishes to a bucket. */
const NOT_LOADED = /\/node_modules\/(bullmq|ioredis|prom-client|@aws-sdk\/[^/]+)\//;
/** The HTTP client's package, loaded at a sync's first request only. */
const UNDICI = /\/node_modules\/undici\//;

/**
 * Runs the bin under a module hook (node's module.register, ahead of the program) that writes the
 * URL of every module loaded through import, the program's own and the packages it imports, one
 * a line; resolves with the run and those URLs.
 */
async function runTraced(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<CliResult & { loaded: string[] }> {
  const dir = tempDir('tsync-trace-');
  const out = join(dir, 'loaded.txt');
  writeFileSync(out, '');
  writeFileSync(
    join(dir, 'hooks.mjs'),
    [
      "import { appendFileSync } from 'node:fs';",
      'let out;',
      'export function initialize(data) { out = data.out; }',
      'export async function load(url, context, next) {',
      "  appendFileSync(out, url + '\\n');",
      '  return next(url, context);',
      '}',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'register.mjs'),
    [
      "import { register } from 'node:module';",
      `register('./hooks.mjs', import.meta.url, { data: { out: ${JSON.stringify(out)} } });`,
    ].join('\n'),
  );
  const child = spawn(process.execPath, ['--import', join(dir, 'register.mjs'), BIN, ...args], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const result = await new Promise<CliResult>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  const loaded = readFileSync(out, 'utf8').split('\n').filter(Boolean);
  return { ...result, loaded };
}

describe('a command loads what it runs', () => {
  /** One synced file and its simulator, for the commands that read it; kept for the whole file. */
  let env: Record<string, string>;
  beforeAll(async () => {
    const sim = await startSimulator({ preRecorded: 4, live: 4 });
    const folder = fileTempDir('tsync-loaded-');
    afterAll(async () => {
      await sim.close();
      folder.remove();
    });
    env = { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey, TSYNC_DB: join(folder.dir, 'idle.duckdb') };
    const first = await runMain(['sync'], env);
    expect(first.code, first.stderr).toBe(0);
  });

  it('an idle sync loads no Redis, BullMQ, prom-client, AWS SDK, worker module or dataset writer', async () => {
    const idle = await runTraced(['sync', '--json'], env);
    expect(idle.code, idle.stderr).toBe(0);
    const summary = JSON.parse(idle.stdout) as { kinds: { inserted: number; updated: number }[] };
    expect(summary.kinds.map((k) => k.inserted + k.updated)).toEqual([0, 0]);
    // The hook saw the run: the sync command and the pipeline it runs, and the client's requests.
    expect(
      idle.loaded.filter((url) => /\/dist\/src\/(pipeline|cli\/commands\/sync)\.js$/.test(url)),
    ).toHaveLength(2);
    expect(idle.loaded.some((url) => UNDICI.test(url))).toBe(true);
    expect(idle.loaded.filter((url) => NOT_LOADED.test(url))).toEqual([]);
    // Nor the worker's modules, nor its jobs (the bin hands them to the worker only), nor the
    // dataset's writers (a run with --publish loads them after its kinds ran).
    expect(idle.loaded.filter((url) => /\/dist\/(src\/worker|jobs)\//.test(url))).toEqual([]);
    const publishing = idle.loaded.filter((url) => /\/dist\/src\/analytics\/publish\//.test(url));
    expect(publishing.map((url) => url.replace(/.*\//, ''))).toEqual(['bucket-url.js']);
  });

  it.each([
    ['worker', '--help'],
    ['enqueue', '--help'],
  ])('%s %s loads no Redis, BullMQ or prom-client', async (...args) => {
    const run = await runTraced(args);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Usage: transcript-sync ${args[0]}`);
    expect(run.loaded.some((url) => url.endsWith(`/dist/src/cli/commands/${args[0]}.js`))).toBe(true);
    expect(run.loaded.filter((url) => NOT_LOADED.test(url))).toEqual([]);
  });

  it('the hook sees a package loaded: state show with REDIS_URL loads ioredis', async () => {
    // Port 9 answers nothing: the Redis copy is reported unreachable, the file's copy still shown.
    const run = await runTraced(['state', 'show'], { ...env, REDIS_URL: 'redis://127.0.0.1:9' });
    expect(run.loaded.some((url) => /\/node_modules\/ioredis\//.test(url))).toBe(true);
  });

  it('state show without REDIS_URL reads the file and loads no Redis client, nor undici', async () => {
    const run = await runTraced(['state', 'show'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('not configured');
    expect(run.loaded.filter((url) => NOT_LOADED.test(url) || UNDICI.test(url))).toEqual([]);
  });

  it('status reads the file and loads no HTTP client', async () => {
    const run = await runTraced(['status'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.loaded.some((url) => url.endsWith('/dist/src/cli/commands/status.js'))).toBe(true);
    expect(run.loaded.filter((url) => UNDICI.test(url) || NOT_LOADED.test(url))).toEqual([]);
  });
});

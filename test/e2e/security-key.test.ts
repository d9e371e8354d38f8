/**
 * The API key never leaves the x-service-key header: syncs that fail in every way (faults, a broken
 * paging contract, a refused key), one-shot and through the worker, at debug log level, and then
 * every place an operator could look is searched for a distinctive key: stdout, stderr and log
 * lines, error messages, sync_runs, every column of every DuckDB table and the file's bytes, every
 * Redis key and value under the prefix (checkpoints, BullMQ job data, failed reasons).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, runMain } from '../helpers/cli.js';
import { redisUrl, uniquePrefix } from '../helpers/redis.js';
import { searchDatabase, searchRedis, textHits } from '../helpers/secret-search.js';
import { tempDir } from '../helpers/tmp.js';
import { NO_REPORT, spawnCli, testRedis } from '../helpers/worker.js';

const KEY = 'tsk_live_Q7zX9vLEAKME_4c1d8e2f';
const WRONG_KEY = 'tsk_live_WR0NGkey_LEAKME_77aa31';
/** Planted in upstream data, so the searches can be seen to find what is there. */
const CANARY = 'canary-5e1f0c9b';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('the API key stays secret end to end', () => {
  it('appears in no output, log line, error, table, file or Redis value after failing and succeeding syncs', async () => {
    sim = await startSimulator({
      apiKey: KEY,
      preRecorded: 30,
      live: 20,
      seed: 91,
      utterancesPerJob: 3,
      wordsPerUtterance: 3,
    });
    const first = sim.data.all()[0];
    sim.data.edit(String(first?.['id']), (r) => {
      r['custom_metadata'] = { note: CANARY };
    });
    sim.faults.retryAfter = '0';
    const prefix = uniquePrefix('secret');
    const redis = testRedis(prefix);
    const db = join(tempDir('tsync-secret-'), 'secret.duckdb');
    const env = {
      TSYNC_BASE_URL: sim.url,
      TSYNC_API_KEY: KEY,
      TSYNC_LOG_LEVEL: 'debug',
      TSYNC_PAGE_SIZE: '10',
      TSYNC_RATE_LIMIT: '1000',
      REDIS_URL: redisUrl(),
      TSYNC_REDIS_PREFIX: prefix,
    };
    const outputs: string[] = [];
    const cli = async (args: string[], extra: Record<string, string> = {}) => {
      const result = await runCli(args, { ...env, ...extra });
      outputs.push(result.stdout, result.stderr);
      return result;
    };
    /** A command that needs no process of its own (no signal, no worker), in this process: the same output. */
    const inProcess = async (args: string[], extra: Record<string, string> = {}) => {
      const result = await runMain(args, { ...env, ...extra });
      outputs.push(result.stdout, result.stderr);
      return result;
    };

    // One-shot: faults of every kind, including malformed records (quarantine) and foreign next links.
    sim.faults.setRandom({
      rate: 0.3,
      seed: 5,
      kinds: [
        '429',
        '500',
        '503',
        'reset',
        'truncate',
        'bad-json',
        'malformed-record',
        'next-foreign-origin',
      ],
    });
    expect((await cli(['sync', '--db', db, '--checkpoints', 'redis', '--json'])).code).toBe(0);
    sim.faults.clear();
    // A broken paging contract: the run fails and its error is stored in sync_runs.
    sim.faults.inject('next-stuck');
    expect((await cli(['sync', '--db', db, '--full'])).code).toBe(1);
    // A refused key.
    const refused = await inProcess(['sync', '--db', db], { TSYNC_API_KEY: WRONG_KEY });
    expect(refused.code).toBe(2);
    for (const args of [
      ['status', '--db', db, '--json'],
      ['quarantine', 'list', '--db', db, '--all'],
      ['report', 'errors', '--db', db],
    ]) {
      expect((await inProcess(args)).code).toBe(0);
    }

    // The worker: a refused key fails its job (failedReason in Redis), then the right key succeeds.
    for (const [key, expectedExit] of [
      [WRONG_KEY, 1],
      [KEY, 0],
    ] as const) {
      const worker = spawnCli(
        ['worker', '--db', db, '--metrics-port', '0', '--every', '1h', '--full-every', '1d', ...NO_REPORT],
        { ...env, TSYNC_API_KEY: key },
      );
      await worker.waitForLog((line) => line['msg'] === 'worker started');
      const enqueued = await inProcess(['enqueue', '--wait', '--kind', 'live', '--timeout', '60s']);
      expect(enqueued.code, enqueued.stdout + enqueued.stderr).toBe(expectedExit);
      worker.process.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
      outputs.push(worker.stdout(), worker.stderr());
    }

    const text = outputs.join('\n');
    expect(text, 'debug log lines were written').toContain('"level":20');
    const stored = await searchDatabase(db, KEY);
    const wrong = await searchDatabase(db, WRONG_KEY);
    const inRedis = await searchRedis(redis, prefix, KEY);
    const wrongInRedis = await searchRedis(redis, prefix, WRONG_KEY);
    expect(textHits(text, KEY), 'the key in stdout/stderr/logs').toEqual([]);
    expect(textHits(text, WRONG_KEY), 'the refused key in stdout/stderr/logs').toEqual([]);
    expect(stored.hits, 'the key in the database').toEqual([]);
    expect(wrong.hits, 'the refused key in the database').toEqual([]);
    expect(inRedis.hits, 'the key in Redis').toEqual([]);
    expect(wrongInRedis.hits, 'the refused key in Redis').toEqual([]);
    // The searches looked at real data: the canary is found, job data and failures are in Redis.
    expect((await searchDatabase(db, CANARY)).hits).toContain('job_records.raw');
    expect(stored.columnsSearched).toBeGreaterThan(50);
    expect(inRedis.keysSearched).toBeGreaterThan(5);
    expect(inRedis.everything).toContain(`${prefix}:checkpoint:live`);
    expect(inRedis.everything).toMatch(/"kind\\?":\\?"live\\?"/);
    expect(inRedis.everything).toContain('refused the API key');
  }, 120_000);
});

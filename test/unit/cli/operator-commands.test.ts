/**
 * The commands operators reach for, in this process (runMain) against a real DuckDB file, real
 * Redis and the simulator: `runs`, `state show|reset`, `config show`, and `--notify` posting to a
 * local HTTP server on 127.0.0.1, from a sync and from the worker.
 */
import { createServer } from 'node:http';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_SECRET_MIN } from '../../../src/config/worker-settings.js';
import { type Simulator, startSimulator } from '../../../src/simulator/index.js';
import { acquireWriterLock } from '../../../src/store/file/writer-lock.js';
import { checkpointKey } from '../../../src/sync/checkpoints/redis-store.js';
import { parseCheckpoint } from '../../../src/sync/checkpoints/schema.js';
import { type CliResult, runMain } from '../../helpers/cli.js';
import { migratedDb } from '../../helpers/migrated-db.js';
import { redisUrl, uniquePrefix } from '../../helpers/redis.js';
import { eventually, onCleanup, testRedis } from '../../helpers/worker.js';
import { start, options as workerOptions } from '../../helpers/worker-in-process.js';

async function simulator(): Promise<Simulator> {
  const sim = await startSimulator({ preRecorded: 6, live: 4, utterancesPerJob: 1, wordsPerUtterance: 2 });
  onCleanup(() => sim.close());
  return sim;
}

function ok(result: CliResult): CliResult {
  expect(result.code, result.stderr).toBe(0);
  return result;
}

function oneLine(result: CliResult, code: number): string {
  expect(result.code, result.stderr).toBe(code);
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  return lines[0] as string;
}

describe('runs', () => {
  it('lists sync_runs newest first with snake_case JSON, filtered by --kind and --limit', async () => {
    const sim = await simulator();
    const db = await migratedDb('runs.duckdb');
    const env = { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey, TSYNC_DB: db };
    ok(await runMain(['sync'], env));
    ok(await runMain(['sync', '--kind', 'live'], env));

    const all = JSON.parse(ok(await runMain(['runs', '--json'], env)).stdout) as Record<string, unknown>[];
    expect(all.map((r) => r['kind'])).toEqual(['live', 'live', 'pre-recorded']);
    expect(all[2]).toMatchObject({
      mode: 'incremental',
      outcome: 'ok',
      jobs_fetched: 6,
      inserted: 6,
      error: null,
    });
    expect(Object.keys(all[0] ?? {})).toEqual(
      expect.arrayContaining(['run_id', 'started_at', 'finished_at', 'duration_s']),
    );
    expect(String(all[0]?.['started_at'])).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const live = JSON.parse(
      ok(await runMain(['runs', '--kind', 'live', '--limit', '1', '--json'], env)).stdout,
    );
    expect(live).toHaveLength(1);
    expect(live[0]).toMatchObject({ kind: 'live', outcome: 'ok', inserted: 0 });

    const table = ok(await runMain(['runs'], env)).stdout;
    expect(table).toMatch(/^started_at\s+kind\s+mode\s+outcome\s+duration_s/);
    expect(table).toContain('(3 rows)');
    expect(oneLine(await runMain(['runs', '--limit', '0'], env), 2)).toContain('--limit');
  });
});

describe('state', () => {
  it('shows both checkpoints and the start of the next run; reset needs --yes, writes both stores, and the next run re-fetches', async () => {
    const sim = await simulator();
    const db = await migratedDb('state.duckdb');
    const prefix = uniquePrefix('state');
    const redis = testRedis(prefix);
    const env = {
      TSYNC_BASE_URL: sim.url,
      TSYNC_API_KEY: sim.apiKey,
      TSYNC_DB: db,
      REDIS_URL: redisUrl(),
      TSYNC_REDIS_PREFIX: prefix,
    };
    ok(await runMain(['sync', '--checkpoints', 'redis'], env));

    const shown = JSON.parse(ok(await runMain(['state', 'show', '--kind', 'live', '--json'], env)).stdout);
    expect(shown).toHaveLength(1);
    expect(shown[0].kind).toBe('live');
    expect(shown[0].duckdb.watermark).toMatch(/^\d{4}-/);
    expect(shown[0].redis.watermark).toBe(shown[0].duckdb.watermark);
    expect(shown[0].next_run_from).toBe(shown[0].duckdb.watermark);
    expect(shown[0].duckdb.last_run.jobs_fetched).toBe(4);

    const refused = oneLine(await runMain(['state', 'reset', '--kind', 'live'], env), 2);
    expect(refused).toContain(
      '--yes: state reset makes the next live run re-fetch all history; add --yes to confirm',
    );
    expect(parseCheckpoint(await redis.get(checkpointKey(prefix, 'live')))?.watermark).toBe(
      shown[0].redis.watermark,
    );

    const reset = ok(
      await runMain(['state', 'reset', '--kind', 'live', '--since', '2000-01-01', '--yes'], env),
    );
    expect(reset.stdout).toContain('live: checkpoint reset (watermark was ');
    expect(parseCheckpoint(await redis.get(checkpointKey(prefix, 'live')))?.watermark).toBe(
      '2000-01-01T00:00:00.000Z',
    );
    const after = JSON.parse(ok(await runMain(['state', 'show', '--json'], env)).stdout);
    expect(after.map((r: { kind: string; next_run_from: string }) => [r.kind, r.next_run_from])).toEqual([
      ['pre-recorded', after[0].duckdb.watermark],
      ['live', '2000-01-01T00:00:00.000Z'],
    ]);

    const again = JSON.parse(ok(await runMain(['sync', '--checkpoints', 'redis', '--json'], env)).stdout);
    const byKind = Object.fromEntries(again.kinds.map((k: { kind: string }) => [k.kind, k]));
    expect(byKind.live).toMatchObject({ jobs_fetched: 4, unchanged: 4, inserted: 0 });
    expect(byKind['pre-recorded'].jobs_fetched).toBe(0);
  });

  it('reset is refused while another writer holds the file', async () => {
    const sim = await simulator();
    const db = await migratedDb('held.duckdb');
    const env = { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey, TSYNC_DB: db };
    ok(await runMain(['sync'], env));
    const lock = acquireWriterLock({ db, command: 'worker' });
    onCleanup(async () => lock.release());
    const reset = ['state', 'reset', '--kind', 'all', '--yes', '--lock-wait', '0s'];
    const line = oneLine(await runMain(reset, env), 1);
    expect(line).toContain(`is being written by pid ${process.pid} (transcript-sync worker)`);
  });
});

describe('config show', () => {
  it('lists each setting with its value, the key and passwords masked, and its source', async () => {
    const env = {
      TSYNC_API_KEY: 'very-secret-key',
      REDIS_URL: 'redis://user:redis-password@127.0.0.1:6390',
      TSYNC_PAGE_SIZE: '50',
      TSYNC_LOOKBACK: '15',
    };
    const result = await runMain(['config', 'show', '--json', '--db', '/tmp/x.duckdb'], env);
    // TSYNC_LOOKBACK would be refused: reported as a sync would, exit 2.
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'transcript-sync: TSYNC_LOOKBACK: "15" has no unit; write it with one (e.g. 500ms, 30s, 15m, 2h, 7d)\n',
    );
    expect(result.stdout).not.toContain('very-secret-key');
    expect(result.stdout).not.toContain('redis-password');
    const rows = Object.fromEntries(
      (JSON.parse(result.stdout) as { setting: string }[]).map((r) => [r.setting, r]),
    );
    expect(rows['api_key']).toMatchObject({
      env: 'TSYNC_API_KEY',
      flag: null,
      source: 'env',
      value: '***** (set)',
    });
    expect(rows['db']).toMatchObject({ flag: '--db', source: 'flag', value: '/tmp/x.duckdb' });
    expect(rows['page_size']).toMatchObject({ source: 'env', value: '50', problem: null });
    expect(rows['redis_prefix']).toMatchObject({ source: 'default', value: 'tsync' });
    expect(rows['base_url']).toMatchObject({ source: 'unset', value: null });
    expect(rows['redis_url']).toMatchObject({ source: 'env', value: 'redis://user:*****@127.0.0.1:6390' });
    expect(rows['lookback']).toMatchObject({
      source: 'env',
      problem: expect.stringContaining('has no unit'),
    });

    const table = (await runMain(['config', 'show'], env)).stdout;
    expect(table).toMatch(/--page-size \/ TSYNC_PAGE_SIZE\s+50\s+env/);
    expect(table).not.toContain('very-secret-key');
  });

  it('shows --page-bytes and --slice-jobs as derived when unset, durations as given, and exits 0 when all is valid', async () => {
    const result = ok(
      await runMain(['config', 'show', '--json', '--page-size', '50', '--memory', '1GB'], {}),
    );
    expect(result.stderr).toBe('');
    const rows = Object.fromEntries(
      (JSON.parse(result.stdout) as { setting: string }[]).map((r) => [r.setting, r]),
    );
    expect(rows['slice_jobs']).toMatchObject({ source: 'derived', value: '200 (from --page-size 50)' });
    expect(rows['page_bytes']).toMatchObject({
      source: 'derived',
      value: expect.stringMatching(/^\d+(\.\d)? [KM]iB \(from --memory 1GB, --concurrency 2\)$/),
    });
    expect(rows['pending_max_age']).toMatchObject({ source: 'default', value: '7d' });

    const given = ok(await runMain(['config', 'show', '--json', '--slice-jobs', '1000'], {}));
    const sliceJobs = (JSON.parse(given.stdout) as { setting: string }[]).find(
      (r) => r.setting === 'slice_jobs',
    );
    expect(sliceJobs).toMatchObject({ source: 'flag', value: '1000' });
  });

  it('refuses --checkpoints redis without REDIS_URL, as a sync does, in one line and exit 2', async () => {
    const result = await runMain(['config', 'show', '--json'], { TSYNC_CHECKPOINTS: 'redis' });
    expect(result.code).toBe(2);
    const line =
      'transcript-sync: REDIS_URL: is required with --checkpoints redis; set REDIS_URL or --redis-url';
    expect(result.stderr.trim()).toBe(line);
    const rows = JSON.parse(result.stdout) as { setting: string; problem: string | null }[];
    expect(rows.find((r) => r.setting === 'redis_url')?.problem).toBe(
      'is required with --checkpoints redis; set REDIS_URL or --redis-url',
    );
    ok(
      await runMain(['config', 'show'], { TSYNC_CHECKPOINTS: 'redis', REDIS_URL: 'redis://127.0.0.1:6390' }),
    );
  });

  it('refuses --webhook-port with a missing, short or unsafe secret, as the worker does, never showing it', async () => {
    const long = 'a'.repeat(WEBHOOK_SECRET_MIN);
    const cases: { flags: string[]; env: Record<string, string>; wrong: string }[] = [
      { flags: ['--webhook-port', '8790'], env: {}, wrong: 'it is unset' },
      {
        flags: [],
        env: { TSYNC_WEBHOOK_PORT: '8790', TSYNC_WEBHOOK_SECRET: 'short-secret-x' },
        wrong: 'it has 14',
      },
      {
        flags: ['--webhook-port', '8790'],
        env: { TSYNC_WEBHOOK_SECRET: `${long}/unsafe` },
        wrong: 'it holds other characters',
      },
    ];
    for (const { flags, env, wrong } of cases) {
      const shown = await runMain(['config', 'show', '--json', ...flags], env);
      const line = oneLine(shown, 2);
      expect(line).toBe(
        `transcript-sync: TSYNC_WEBHOOK_SECRET: --webhook-port needs at least ${WEBHOOK_SECRET_MIN} letters, digits or -_.~ here (${wrong}); make one with: openssl rand -hex 32`,
      );
      // The worker refuses the same settings with the same words (in its JSON log line).
      const worker = JSON.parse(oneLine(await runMain(['worker', ...flags], env), 2)) as { msg: string };
      expect(worker.msg).toBe(line);
      const rows = JSON.parse(shown.stdout) as { setting: string; problem: string | null }[];
      expect(rows.find((r) => r.setting === 'webhook_secret')?.problem).toBe(
        line.replace('transcript-sync: TSYNC_WEBHOOK_SECRET: ', ''),
      );
      for (const secret of ['short-secret-x', long])
        expect(shown.stdout + shown.stderr).not.toContain(secret);
    }
    ok(await runMain(['config', 'show'], { TSYNC_WEBHOOK_PORT: '8790', TSYNC_WEBHOOK_SECRET: long }));
    // No port, no webhook: a secret alone is not checked.
    ok(await runMain(['config', 'show'], { TSYNC_WEBHOOK_SECRET: 'short-secret-x' }));
  });

  it('masks the password of a URL it refuses, in its value, its reason and on stderr', async () => {
    const env = {
      // An https URL where a redis:// one belongs, and a scheme mistyped: both refused.
      REDIS_URL: 'https://default:redis-password@cache.example.com:6379',
      TSYNC_PUBLISH_ENDPOINT: 'minio//admin:minio-password@minio:9000',
    };
    const result = await runMain(['config', 'show', '--json'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'transcript-sync: REDIS_URL: must start with redis:// or rediss:// (e.g. redis://127.0.0.1:6379) (got "https://default:*****@cache.example.com:6379")\n' +
        'transcript-sync: TSYNC_PUBLISH_ENDPOINT: is not a URL (e.g. https://api.example.com) (got "minio//admin:*****@minio:9000")\n',
    );
    for (const password of ['redis-password', 'minio-password']) {
      expect(result.stdout).not.toContain(password);
    }
    const rows = Object.fromEntries(
      (JSON.parse(result.stdout) as { setting: string }[]).map((r) => [r.setting, r]),
    );
    expect(rows['publish_endpoint']).toMatchObject({
      source: 'env',
      value: 'minio//admin:*****@minio:9000',
    });

    // Any other command refuses it in the same words.
    const enqueue = await runMain(['enqueue'], env);
    expect(oneLine(enqueue, 2)).toBe(result.stderr.split('\n')[0]);
  });

  it('refuses a --publish s3:// URL with credentials as sync does, showing none of them', async () => {
    for (const publish of ['s3://AKIAEXAMPLEKEYID:s3-secret@lake/x', 's3://AKIAEXAMPLEKEYID@lake/x']) {
      const env = { TSYNC_PUBLISH: publish };
      const result = await runMain(['config', 'show', '--json'], env);
      expect(result.code, publish).toBe(2);
      const line = oneLine(result, 2);
      expect(line).toMatch(/^transcript-sync: TSYNC_PUBLISH: must not carry credentials; /);
      const rows = Object.fromEntries(
        (JSON.parse(result.stdout) as { setting: string }[]).map((r) => [r.setting, r]),
      );
      expect(rows['publish']).toMatchObject({
        source: 'env',
        value: 's3://*****@lake/x',
        problem: expect.stringContaining('must not carry credentials'),
      });
      for (const credential of ['AKIAEXAMPLEKEYID', 's3-secret']) {
        expect(result.stdout).not.toContain(credential);
        expect(result.stderr).not.toContain(credential);
      }
      // A sync refuses it in the same words (its closing line a log line off a terminal).
      const sync = await runMain(['sync', '--db', '/tmp/never-made.duckdb'], env);
      expect((JSON.parse(oneLine(sync, 2)) as { msg: string }).msg).toBe(line);
    }
  });
});

describe('--notify', () => {
  async function receiver() {
    const bodies: Record<string, unknown>[] = [];
    const raw: string[] = [];
    const server = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        raw.push(`${request.method} ${request.headers['content-type']} ${text}`);
        bodies.push(JSON.parse(text) as Record<string, unknown>);
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    onCleanup(() => new Promise((r) => server.close(() => r())));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    return { url: `http://127.0.0.1:${port}/hook`, bodies, raw };
  }

  it('sync posts once when a kind starts failing and once when it recovers, never with the key', async () => {
    const sim = await simulator();
    const hook = await receiver();
    const db = await migratedDb('notify.duckdb');
    // Given relative, as a cron line often does: the message names the file absolutely.
    const env = { TSYNC_BASE_URL: sim.url, TSYNC_DB: relative(process.cwd(), db) };
    ok(await runMain(['sync', '--notify', hook.url], { ...env, TSYNC_API_KEY: sim.apiKey }));
    expect(hook.bodies).toEqual([]);

    for (let i = 0; i < 2; i += 1) {
      const failed = await runMain(['sync', '--notify', hook.url, '--kind', 'live'], {
        ...env,
        TSYNC_API_KEY: 'a-wrong-key',
      });
      expect(failed.code).toBe(2);
    }
    expect(hook.bodies).toHaveLength(1);
    expect(hook.raw[0]).toMatch(/^POST application\/json /);
    expect(hook.bodies[0]).toMatchObject({
      event: 'run_failed',
      kind: 'live',
      mode: 'incremental',
      outcome: 'failed',
      retryable: false,
      command: 'sync',
      db,
      error: expect.stringContaining('the service refused the API key (HTTP 401)'),
    });

    ok(await runMain(['sync', '--notify', hook.url], { ...env, TSYNC_API_KEY: sim.apiKey }));
    expect(hook.bodies.map((b) => [b['event'], b['kind']])).toEqual([
      ['run_failed', 'live'],
      ['run_recovered', 'live'],
    ]);
    expect(hook.bodies[1]).toMatchObject({
      outcome: 'ok',
      error: null,
      run_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    for (const text of hook.raw) {
      expect(text).not.toContain(sim.apiKey);
      expect(text).not.toContain('a-wrong-key');
    }
    expect(
      oneLine(await runMain(['sync', '--notify', 'ftp://x'], { ...env, TSYNC_API_KEY: 'k' }), 2),
    ).toContain('--notify');
  });

  it('a --full sync names its mode full when it fails, and --window names it recent', async () => {
    const sim = await simulator();
    const hook = await receiver();
    const env = { TSYNC_BASE_URL: sim.url, TSYNC_DB: await migratedDb('notify-full.duckdb') };
    // Nothing listens on port 1: the run fails at its checkpoint store, before any kind has a summary.
    const noRedis = { ...env, TSYNC_API_KEY: sim.apiKey, REDIS_URL: 'redis://127.0.0.1:1' };
    const full = ['sync', '--full', '--kind', 'live', '--checkpoints', 'redis', '--notify', hook.url];
    expect((await runMain(full, noRedis)).code).toBe(1);
    expect((await runMain([...full, '--window', '1d'], noRedis)).code).toBe(1);
    expect(hook.bodies.map((b) => [b['event'], b['kind'], b['mode'], b['run_id']])).toEqual([
      ['run_failed', 'live', 'full', null],
      ['run_failed', 'live', 'recent', null],
    ]);
  });

  it('the worker posts when a run fails with a refused key', async () => {
    const sim = await simulator();
    const hook = await receiver();
    const prefix = uniquePrefix('notify');
    testRedis(prefix);
    // In this process: the post is the worker's runtime's, not its process's.
    const base = workerOptions(sim, await migratedDb('w.duckdb'), prefix, {
      kinds: ['live'],
      notifyUrl: hook.url,
    });
    await start({ ...base, settings: { ...base.settings, apiKey: 'worker-wrong-key' } });
    await eventually(() => hook.bodies.length > 0, 'a notification');
    expect(hook.bodies).toEqual([
      expect.objectContaining({ event: 'run_failed', kind: 'live', command: 'worker', retryable: false }),
    ]);
    expect(hook.raw.join('\n')).not.toContain('worker-wrong-key');
  });

  it('refuses a URL with a user name or password, which fetch would never post to', async () => {
    const env = {
      TSYNC_BASE_URL: 'http://127.0.0.1:9',
      TSYNC_API_KEY: 'k',
      TSYNC_DB: await migratedDb('cred.duckdb'),
    };
    const withCredentials = 'https://hooks:s3cret-pass@hooks.example/notify';
    const byFlag = oneLine(await runMain(['sync', '--notify', withCredentials], env), 2);
    expect(byFlag).toContain('--notify');
    expect(byFlag).toMatch(/path or query/);
    expect(byFlag).not.toContain('s3cret-pass');
    const byEnv = oneLine(await runMain(['sync'], { ...env, TSYNC_NOTIFY: withCredentials }), 2);
    expect(byEnv).toContain('TSYNC_NOTIFY');
    expect(byEnv).not.toContain('s3cret-pass');
  });
});

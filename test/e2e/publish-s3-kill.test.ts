/**
 * A `sync --publish s3://` process killed with SIGKILL while it uploads (bin over dist/, a real S3
 * server over HTTP): nothing in the process runs after the signal, so what keeps the dataset valid
 * is the order of the writes alone: the previous `_manifest.json` is still the current one and
 * every file it names is in place; the next publish succeeds and deletes what the killed one left.
 * The store answers through a proxy that holds each request a while, so that the kill lands after
 * the first upload and long before the manifest. The publishes before and after the killed one run
 * in this process (runMain): what they show is the dataset, not a process.
 */
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Manifest } from '../../src/analytics/publish/manifest.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runMain, startCli } from '../helpers/cli.js';
import { S3RVER_KEY, type S3Server, startS3Server } from '../helpers/s3-server.js';
import { fileTempDir, tempDir } from '../helpers/tmp.js';

const BUCKET = 'lake';
const PREFIX = 'killed/';
const HOLD_MS = 150;

const folder = fileTempDir('tsync-s3-kill-');
let s3: S3Server;
let proxy: Server;
let proxyUrl = '';
let sim: Simulator | undefined;

beforeAll(async () => {
  s3 = await startS3Server(folder.dir, [BUCKET]);
  const target = new URL(s3.url);
  proxy = createServer((req, res) => {
    setTimeout(() => {
      // The killed program's requests: nothing to forward, and none left half-sent to the store.
      if (res.destroyed) return;
      const forward = request(
        // A connection a request, closed after it: none is left open to hold the store's close.
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, connection: 'close' },
          agent: false,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      res.on('close', () => forward.destroy());
      req.pipe(forward);
    }, HOLD_MS);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  proxyUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await s3?.close();
  folder.remove();
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await sim?.close();
  sim = undefined;
});

async function manifest(): Promise<Manifest> {
  const bytes = await s3.get(BUCKET, `${PREFIX}_manifest.json`);
  return JSON.parse(Buffer.from(bytes ?? []).toString('utf8')) as Manifest;
}

function filesOf(m: Manifest): string[] {
  return Object.values(m.tables).flatMap((t) => t.partitions.flatMap((p) => (p.file ? [p.file] : [])));
}

describe('sync --publish s3:// killed during its uploads', () => {
  it('leaves the previous manifest current with every file it names; the next publish cleans up', async () => {
    sim = await startSimulator({
      seed: 77,
      preRecorded: 10,
      live: 10,
      utterancesPerJob: 2,
      wordsPerUtterance: 3,
      from: new Date('2026-09-20T00:00:00.000Z'),
      to: new Date('2026-11-01T00:00:00.000Z'),
    });
    const db = join(tempDir(), 'killed.duckdb');
    const env = {
      TSYNC_BASE_URL: sim.url,
      TSYNC_API_KEY: sim.apiKey,
      TSYNC_RATE_LIMIT: '1000',
      TSYNC_PUBLISH_ENDPOINT: proxyUrl,
      AWS_ACCESS_KEY_ID: S3RVER_KEY.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_KEY.secretAccessKey,
      AWS_REGION: 'us-east-1',
    };
    // The SDK's default chain reads the credentials from the process's environment: this one's too.
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION'] as const)
      vi.stubEnv(name, env[name]);
    const args = ['sync', '--db', db, '--publish', `s3://${BUCKET}/${PREFIX}`];
    const first = await runMain(args, env);
    expect(first.code, first.stderr).toBe(0);
    const m1 = await manifest();
    const before = new Set(await s3.keys(BUCKET, PREFIX));

    // A job of this month: its partitions are new, so the next publish uploads them.
    sim.data.add({
      kind: 'live',
      status: 'done',
      createdAt: new Date(Date.now() - 60_000),
      utterances: 2,
      words: 3,
    });
    const cli = startCli(args, env);
    let killedAfter: string | undefined;
    const off = s3.onCreated((key) => {
      if (killedAfter !== undefined || !key.startsWith(PREFIX) || before.has(key)) return;
      killedAfter = key;
      cli.child.kill('SIGKILL');
    });
    const killed = await cli.done;
    off();
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect(killedAfter).toMatch(/\/part-[^/]+\.parquet$/);

    expect(await manifest()).toEqual(m1);
    for (const file of filesOf(m1)) {
      const bytes = await s3.get(BUCKET, `${PREFIX}${file}`);
      expect(bytes, file).toBeDefined();
      const rows = await parquetReadObjects({ file: (bytes ?? new Uint8Array()).slice().buffer });
      const partition = Object.values(m1.tables)
        .flatMap((t) => t.partitions)
        .find((p) => p.file === file);
      expect(rows.length, file).toBe(partition?.rows);
    }

    const next = await runMain(args, env);
    expect(next.code, next.stderr).toBe(0);
    const m2 = await manifest();
    expect(m2.as_of > m1.as_of).toBe(true);
    expect(m2.tables['jobs']?.rows).toBe((m1.tables['jobs']?.rows ?? 0) + 1);
    // What the killed publish uploaded is named by no manifest: the next one deleted it.
    const named = new Set([...filesOf(m1), ...filesOf(m2)]);
    const left = (await s3.keys(BUCKET, PREFIX))
      .map((key) => key.slice(PREFIX.length))
      .filter((key) => !key.startsWith('_') && !named.has(key));
    expect(left).toEqual([]);
  }, 120_000);
});

/**
 * `--publish s3://BUCKET/PREFIX` against a real S3 server over HTTP (s3rver, test/helpers/s3-server.ts):
 * what a bucket holds reads back equal to the mirror, read with the AWS SDK and a Parquet reader
 * other than DuckDB (hyparquet); a reader holding an older manifest reads its whole dataset while
 * and after the next publish runs; a stopped publish leaves the previous manifest; bad input is one
 * line naming the fix. Credentials reach the SDK through its own chain (the environment).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { MANIFEST_FILE, type Manifest } from '../../../src/analytics/publish/manifest.js';
import { PUBLISHED_TABLES } from '../../../src/analytics/publish/publish.js';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../../src/simulator/index.js';
import { openReadOnly } from '../../../src/store/open-file.js';
import { copyDataset } from '../../../src/store/statements/datasets.js';
import { runMain, shownLines } from '../../helpers/cli.js';
import { migratedDb } from '../../helpers/migrated-db.js';
import { freePort } from '../../helpers/net.js';
import { S3RVER_KEY, type S3Server, startS3Server } from '../../helpers/s3-server.js';
import { syncOnce } from '../../helpers/sync.js';
import { fileTempDir, tempDir } from '../../helpers/tmp.js';

const BUCKET = 'lake';
const PREFIX = 'team/transcripts';
const URL_OF_DATASET = `s3://${BUCKET}/${PREFIX}`;

/** 24 jobs over six weeks: (kind, month) partitions of two months a kind. */
const ACCOUNT: SimulatorOptions = {
  seed: 5454,
  preRecorded: 12,
  live: 12,
  utterancesPerJob: 2,
  wordsPerUtterance: 3,
  from: new Date('2026-09-20T00:00:00.000Z'),
  to: new Date('2026-11-01T00:00:00.000Z'),
};

const folder = fileTempDir('tsync-s3-');
let s3: S3Server;
let sim: Simulator | undefined;

beforeAll(async () => {
  s3 = await startS3Server(folder.dir, [BUCKET]);
});
afterAll(async () => {
  await s3?.close();
  folder.remove();
});
beforeEach(() => {
  // The SDK's default chain reads these from the process's environment.
  vi.stubEnv('AWS_ACCESS_KEY_ID', S3RVER_KEY.accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', S3RVER_KEY.secretAccessKey);
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.stubEnv('AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED', 'true');
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await sim?.close();
  sim = undefined;
});

/** A prefix of its own for each test, so that tests never see each other's objects. */
function datasetUrl(name: string): { url: string; prefix: string } {
  return { url: `${URL_OF_DATASET}/${name}`, prefix: `${PREFIX}/${name}/` };
}

async function manifestAt(prefix: string, file = MANIFEST_FILE): Promise<Manifest> {
  const bytes = await s3.get(BUCKET, `${prefix}${file}`);
  expect(bytes, `${prefix}${file}`).toBeDefined();
  return JSON.parse(Buffer.from(bytes ?? []).toString('utf8')) as Manifest;
}

/** Rows as comparable text: BigInt as its digits, Date as ISO, keys in `columns` order. */
function rowText(row: Record<string, unknown>, columns: readonly string[]): string {
  return JSON.stringify(
    columns.map((c) => row[c]),
    (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value),
  );
}

function arrayBufferOf(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** Every row of `table` that `manifest` names, read from the bucket with hyparquet, kind and month from the partition. */
async function bucketRows(
  prefix: string,
  manifest: Manifest,
  table: string,
): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for (const partition of manifest.tables[table]?.partitions ?? []) {
    if (partition.file === null) continue;
    const bytes = await s3.get(BUCKET, `${prefix}${partition.file}`);
    if (bytes === undefined) throw new Error(`${prefix}${partition.file} is gone`);
    const read = await parquetReadObjects({ file: arrayBufferOf(bytes) });
    expect(read.length, partition.file).toBe(partition.rows);
    for (const row of read) rows.push({ ...row, kind: partition.kind, month: partition.month });
  }
  return rows;
}

/** Each published table as the mirror holds it, copied whole to one file and read with hyparquet. */
async function mirrorRows(
  db: string,
): Promise<Map<string, { columns: string[]; rows: Record<string, unknown>[] }>> {
  const reader = await openReadOnly(db);
  const out = new Map<string, { columns: string[]; rows: Record<string, unknown>[] }>();
  try {
    for (const { table, dataset } of PUBLISHED_TABLES) {
      const whole = join(tempDir(), `${table}.parquet`);
      await copyDataset(reader, dataset, {}, { path: whole, partitionBy: [], setting: 'test' });
      const file = arrayBufferOf(readFileSync(whole));
      const columns = parquetMetadata(file)
        .schema.slice(1)
        .map((element) => element.name);
      out.set(table, { columns, rows: await parquetReadObjects({ file }) });
    }
  } finally {
    await reader.close();
  }
  return out;
}

/** Every table the manifest names equals the mirror, row for row (as multisets). */
async function expectEqualToMirror(db: string, prefix: string, manifest: Manifest): Promise<void> {
  const mirror = await mirrorRows(db);
  for (const { table } of PUBLISHED_TABLES) {
    const want = mirror.get(table);
    if (!want) throw new Error(`no mirror rows of ${table}`);
    expect(want.rows.length, table).toBeGreaterThan(0);
    const got = await bucketRows(prefix, manifest, table);
    const text = (rows: Record<string, unknown>[]) =>
      rows
        .map((row) => ({ ...row, kind: String(row['kind']), month: String(row['month']) }))
        .map((row) => rowText(row, want.columns))
        .sort();
    expect(text(got), table).toEqual(text(want.rows));
    expect(manifest.tables[table]?.rows, table).toBe(want.rows.length);
  }
}

/** Reads every file `manifest` names; the rows per table must be the manifest's. */
async function expectReadable(prefix: string, manifest: Manifest): Promise<void> {
  for (const { table } of PUBLISHED_TABLES) {
    const rows = await bucketRows(prefix, manifest, table);
    expect(rows.length, table).toBe(manifest.tables[table]?.rows);
  }
}

function filesOf(manifest: Manifest): Set<string> {
  return new Set(
    Object.values(manifest.tables).flatMap((t) => t.partitions.flatMap((p) => (p.file ? [p.file] : []))),
  );
}

function addJob(simulator: Simulator): void {
  // Before the run starts: its window ends at its start, exclusive.
  simulator.data.add({
    kind: 'live',
    status: 'done',
    createdAt: new Date(Date.now() - 60_000),
    utterances: 2,
    words: 3,
  });
}

describe('sync --publish s3://BUCKET/PREFIX', () => {
  test('publishes, then publishes a change: every table reads back equal to the mirror; a reader of the previous manifest reads it whole throughout; what the last 2 manifests name is kept', async () => {
    sim = await startSimulator(ACCOUNT);
    const db = await migratedDb('pub.duckdb');
    const { url, prefix } = datasetUrl('round-trip');
    const publish = { dir: url, raw: false, endpoint: s3.url };

    const first = await syncOnce(sim, db, { publish });
    expect(first.published?.dir).toBe(url);
    expect(first.published?.unchanged).toBe(0);
    const m1 = await manifestAt(prefix);
    await expectEqualToMirror(db, prefix, m1);

    addJob(sim);
    // A reader that took the first manifest keeps reading it while the second publish runs.
    let publishing = true;
    const second = syncOnce(sim, db, { publish }).finally(() => {
      publishing = false;
    });
    let reads = 0;
    while (publishing) {
      await expectReadable(prefix, m1);
      reads += 1;
    }
    const summary = await second;
    expect(reads).toBeGreaterThan(0);
    expect(summary.published?.written).toBeGreaterThan(0);
    expect(summary.published?.unchanged).toBeGreaterThan(summary.published?.written ?? 0);
    const m2 = await manifestAt(prefix);
    expect(m2.as_of > m1.as_of).toBe(true);
    await expectEqualToMirror(db, prefix, m2);
    // Only the changed partitions were uploaded; the previous manifest's files are all still there.
    const uploaded = [...filesOf(m2)].filter((file) => !filesOf(m1).has(file));
    expect(uploaded.length).toBe(summary.published?.written);
    expect(uploaded.every((file) => file.includes('/kind=live/'))).toBe(true);
    await expectReadable(prefix, m1);

    // Two more publishes of a job in the same month: the files only the second manifest named
    // (that month's, rewritten twice since) are deleted; the manifests of the last 2 are kept.
    const later: Manifest[] = [];
    for (const _ of [3, 4]) {
      addJob(sim);
      await syncOnce(sim, db, { publish });
      later.push(await manifestAt(prefix));
    }
    const [m3, m4] = later as [Manifest, Manifest];
    const manifests = await s3.keys(BUCKET, `${prefix}_manifests/`);
    expect(manifests).toHaveLength(2);
    for (const key of manifests) {
      const kept = await manifestAt(prefix, key.slice(prefix.length));
      expect([m3.as_of, m4.as_of]).toContain(kept.as_of);
    }
    await expectReadable(prefix, m3);
    const named = new Set([...filesOf(m3), ...filesOf(m4)]);
    const data = (await s3.keys(BUCKET, prefix))
      .map((key) => key.slice(prefix.length))
      .filter((key) => !key.startsWith('_'));
    expect(data.filter((key) => !named.has(key))).toEqual([]);
    const gone = [...filesOf(m2)].filter((file) => !named.has(file));
    expect(gone.length).toBeGreaterThan(0);
    for (const file of gone) expect(await s3.get(BUCKET, `${prefix}${file}`), file).toBeUndefined();
  }, 120_000);

  test('--publish-keep 1 leaves only the current manifest and the files it names', async () => {
    sim = await startSimulator(ACCOUNT);
    const db = await migratedDb('pub.duckdb');
    const { url, prefix } = datasetUrl('keep-one');
    const publish = { dir: url, raw: false, endpoint: s3.url, keep: 1 };
    await syncOnce(sim, db, { publish });
    // Two publishes of a job in the same month: the second rewrites that month's partitions.
    for (const _ of [2, 3]) {
      addJob(sim);
      await syncOnce(sim, db, { publish });
    }
    const current = await manifestAt(prefix);
    const keys = (await s3.keys(BUCKET, prefix)).map((key) => key.slice(prefix.length));
    expect(keys.filter((key) => key.startsWith('_manifests/'))).toHaveLength(1);
    expect(keys.filter((key) => !key.startsWith('_')).sort()).toEqual([...filesOf(current)].sort());
    await expectEqualToMirror(db, prefix, current);
  }, 120_000);

  test('a publish stopped during its uploads leaves the previous manifest and every file it names; the next one cleans up', async () => {
    sim = await startSimulator(ACCOUNT);
    const db = await migratedDb('pub.duckdb');
    const { url, prefix } = datasetUrl('stopped');
    const publish = { dir: url, raw: false, endpoint: s3.url };
    await syncOnce(sim, db, { publish });
    const m1 = await manifestAt(prefix);
    const before = await s3.keys(BUCKET, prefix);

    addJob(sim);
    const stop = new AbortController();
    const seen: string[] = [];
    const off = s3.onCreated((key) => {
      if (!key.startsWith(prefix) || before.includes(key)) return;
      seen.push(key);
      stop.abort();
    });
    let stopped: Awaited<ReturnType<typeof syncOnce>>;
    try {
      stopped = await syncOnce(sim, db, { publish, signal: stop.signal });
    } finally {
      off();
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(stopped.outcome).toBe('interrupted');
    expect(stopped.notPublished?.reason).toMatch(/interrupted/);
    expect(await manifestAt(prefix)).toEqual(m1);
    await expectReadable(prefix, m1);

    const next = await syncOnce(sim, db, { publish });
    expect(next.published?.written).toBeGreaterThan(0);
    const m2 = await manifestAt(prefix);
    await expectEqualToMirror(db, prefix, m2);
    // What the stopped publish uploaded is named by no manifest: deleted by the next one.
    const named = new Set([...filesOf(m1), ...filesOf(m2)]);
    const data = (await s3.keys(BUCKET, prefix))
      .map((key) => key.slice(prefix.length))
      .filter((key) => !key.startsWith('_'));
    expect(data.filter((key) => !named.has(key))).toEqual([]);
  }, 120_000);
});

describe('--publish s3:// refuses bad input in one line naming the fix', () => {
  /** A run of the CLI in this process against a two-job account, with `env` beside the service's. */
  async function run(args: readonly string[], env: Record<string, string> = {}) {
    sim ??= await startSimulator({ ...ACCOUNT, preRecorded: 1, live: 1 });
    const db = await migratedDb('bad.duckdb');
    const result = await runMain(['sync', '--db', db, ...args], {
      TSYNC_BASE_URL: sim.url,
      TSYNC_API_KEY: sim.apiKey,
      ...env,
    });
    const lines = shownLines(result.stderr).filter((line) => line !== '');
    return { ...result, lines };
  }

  test.each([
    ['s3:/lake/x', /is not an s3:\/\/BUCKET\/PREFIX URL/],
    ['s3://Lake_X/x', /no valid bucket name/],
    ['s3://', /no valid bucket name/],
    ['s3://key:secret@lake/x', /must not carry credentials/],
    ['gs://lake/x', /takes a folder or an s3:\/\/BUCKET\/PREFIX URL/],
  ])('--publish %s: exit 2 at startup, and no folder named after it', async (value, message) => {
    const cwd = process.cwd();
    const result = await run(['--publish', value]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.lines).toHaveLength(1);
    expect(result.lines[0]).toMatch(/^transcript-sync: --publish: /);
    expect(result.lines[0]).toMatch(message);
    expect(result.stderr).not.toContain('secret');
    expect(existsSync(join(cwd, 's3:'))).toBe(false);
    expect(existsSync(join(cwd, 'gs:'))).toBe(false);
  });

  test('an unknown bucket, an unreachable endpoint and refused credentials: exit 1, the fix named, the secret never shown', async () => {
    // The service first, so that the free port taken below stays one nothing listens on.
    sim ??= await startSimulator({ ...ACCOUNT, preRecorded: 1, live: 1 });
    // s3rver checks the key id of a SigV4 request, not its signature: any secret signs, and this one
    // must never be shown.
    const secret = 'wJalrXUtnFEMI-K7MDENG-bPxRfiCY-7f3a9c';
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', secret);
    const cases: { args: string[]; env: Record<string, string>; keyId?: string; line: RegExp }[] = [
      {
        args: ['--publish', 's3://no-such-bucket/x'],
        env: { TSYNC_PUBLISH_ENDPOINT: s3.url },
        line: /^transcript-sync: could not publish to s3:\/\/no-such-bucket\/x: the bucket no-such-bucket does not exist \(NoSuchBucket, HTTP 404\); create the bucket/,
      },
      {
        args: ['--publish', `s3://${BUCKET}/x`],
        // The SDK's own variable, read for path-style addressing too.
        env: { AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${await freePort()}` },
        line: /^transcript-sync: could not publish to s3:\/\/lake\/x: cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); check --publish-endpoint/,
      },
      {
        args: ['--publish', `s3://${BUCKET}/x`, '--publish-endpoint', s3.url],
        env: {},
        keyId: 'AKIAEXPIREDORUNKNOWN',
        line: /^transcript-sync: could not publish to s3:\/\/lake\/x: the object store refused the credentials \(InvalidAccessKeyId, HTTP 403\); renew or set the credentials/,
      },
    ];
    for (const c of cases) {
      vi.stubEnv('AWS_ACCESS_KEY_ID', c.keyId ?? S3RVER_KEY.accessKeyId);
      const result = await run(c.args, { TSYNC_LOG_LEVEL: 'debug', ...c.env });
      expect(result.code, `${c.line}: ${result.stderr}`).toBe(1);
      const failure = result.lines.filter((line) => line.includes('could not publish'));
      expect(failure, result.stderr).toHaveLength(1);
      expect(failure[0]).toMatch(c.line);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
    }
  }, 60_000);
});

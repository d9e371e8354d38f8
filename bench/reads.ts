/**
 * `npm run bench:reads`: reads during a sync and the cost of a publish, side by side in one run.
 * 1. Reads during a back-fill: wall time of `transcript-sync query "SELECT count(*) FROM jobs"` (a
 *    whole CLI process) while a sync back-fills the file and answers over its socket, next to the
 *    same query on the idle file; and the rejected alternative, a reader copying the file to a
 *    snapshot it can open (time and bytes of the copy).
 * 2. The cost of a publish after one new job at two history sizes (3 and 12 months of the same
 *    jobs per month): bytes of Parquet it wrote and write_bytes of the process meanwhile
 *    (/proc/self/io), next to the first full publish and to the sync of that one job.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PublishResult, publishDataset } from '../src/analytics/publish/publish.js';
import { withReader } from '../src/analytics/read/open-reader.js';
import { syncDefaults } from '../src/config/sync-defaults.js';
import { type PipelineOptions, runPipeline } from '../src/pipeline.js';
import { startSimulator } from '../src/simulator/index.js';
import { openWriter } from '../src/store/open-file.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'transcript-sync');
const DAY_MS = 86_400_000;
const say = (line: string) => process.stderr.write(`[bench:reads] ${line}\n`);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function writeBytes(): number {
  const line = readFileSync('/proc/self/io', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('write_bytes:'));
  return Number(line?.split(':')[1] ?? Number.NaN);
}

/** Wall ms of one CLI query, and what it printed. */
function cliQuery(db: string): Promise<{ ms: number; out: string; code: number | null }> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [BIN, 'query', 'SELECT count(*) AS n FROM jobs', '--db', db, '--format', 'csv'],
    {
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], TSYNC_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve) =>
    child.on('close', (code) => resolve({ ms: performance.now() - started, out: out.trim(), code })),
  );
}

async function readsDuringBackfill(root: string): Promise<void> {
  const sim = await startSimulator({
    seed: 4,
    preRecorded: 1_500,
    live: 1_500,
    utterancesPerJob: 30,
    wordsPerUtterance: 12,
    latencyMs: 30,
    apiKey: 'bench-key',
  });
  const db = join(root, 'backfill.duckdb');
  const started = performance.now();
  const sync = spawn(process.execPath, [BIN, 'sync', '--db', db, '--page-size', '50', '--concurrency', '1'], {
    env: {
      PATH: process.env['PATH'],
      TSYNC_BASE_URL: sim.url,
      TSYNC_API_KEY: sim.apiKey,
      TSYNC_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let running = true;
  const ended = new Promise<void>((resolve) =>
    sync.on('close', () => {
      running = false;
      resolve();
    }),
  );
  while (running && !existsSync(`${db}.sock`)) await new Promise((r) => setTimeout(r, 50));
  const during: number[] = [];
  const inProcess: number[] = [];
  const counts: string[] = [];
  const copies: { ms: number; bytes: number }[] = [];
  while (running) {
    const { ms, out, code } = await cliQuery(db);
    if (!running) break;
    if (code === 0) {
      during.push(ms);
      counts.push(out.split('\n')[1] ?? '?');
    }
    // The same read without a process start: what the socket itself costs while the writer works.
    const readStart = performance.now();
    await withReader(db, { lockWaitMs: 0 }, (reader) => reader.all('SELECT count(*) AS n FROM jobs')).then(
      () => running && inProcess.push(performance.now() - readStart),
      () => {},
    );
    // The rejected design: copy the file (and its WAL) to a snapshot a reader could open.
    const copyStart = performance.now();
    copyFileSync(db, join(root, 'snapshot.duckdb'));
    const wal = existsSync(`${db}.wal`) ? statSync(`${db}.wal`).size : 0;
    if (wal > 0) copyFileSync(`${db}.wal`, join(root, 'snapshot.duckdb.wal'));
    copies.push({ ms: performance.now() - copyStart, bytes: statSync(db).size + wal });
    await new Promise((r) => setTimeout(r, 250));
  }
  await ended;
  const backfillMs = performance.now() - started;
  await sim.close();
  const idle: number[] = [];
  for (let i = 0; i < 5; i += 1) idle.push((await cliQuery(db)).ms);
  const size = statSync(db).size;
  say(`back-fill ${(backfillMs / 1000).toFixed(1)} s, file ${(size / 1e6).toFixed(0)} MB`);
  process.stdout.write(
    [
      '| read during a back-fill | value |',
      '|---|---|',
      `| back-fill (3,000 jobs, 30 ms per response) | ${(backfillMs / 1000).toFixed(1)} s, final file ${(size / 1e6).toFixed(0)} MB |`,
      `| query during the back-fill (over the socket), median / max of ${during.length} | ${median(during).toFixed(0)} ms / ${Math.max(...during).toFixed(0)} ms |`,
      `| the same read in-process (no process start) during the back-fill, median / max of ${inProcess.length} | ${median(inProcess).toFixed(0)} ms / ${Math.max(...inProcess).toFixed(0)} ms |`,
      `| same query on the idle file (read-only open), median of ${idle.length} | ${median(idle).toFixed(0)} ms |`,
      `| counts seen during the back-fill | ${counts.join(', ')} |`,
      `| rejected: copy file + WAL to a snapshot, median / max | ${median(copies.map((c) => c.ms)).toFixed(0)} ms / ${Math.max(...copies.map((c) => c.ms)).toFixed(0)} ms, up to ${(Math.max(...copies.map((c) => c.bytes)) / 1e6).toFixed(0)} MB copied per read |`,
      '',
    ].join('\n'),
  );
}

async function publishCost(root: string, months: number): Promise<string> {
  const jobsPerKind = 100 * months;
  const sim = await startSimulator({
    seed: 18,
    preRecorded: jobsPerKind,
    live: jobsPerKind,
    utterancesPerJob: 20,
    wordsPerUtterance: 10,
    from: new Date(Date.now() - months * 30 * DAY_MS),
    to: new Date(Date.now() - 3_600_000),
  });
  const db = join(root, `publish-${months}.duckdb`);
  const dir = join(root, `published-${months}`);
  const options: PipelineOptions = {
    ...syncDefaults(),
    baseUrl: sim.url,
    apiKey: sim.apiKey,
    db,
    redisPrefix: 'bench',
    rateLimit: 10_000,
  };
  await runPipeline(options, options);
  const first = await measuredPublish(db, dir);
  sim.data.add({ kind: 'live', status: 'done', createdAt: new Date(Date.now() - 1_000) });
  const before = writeBytes();
  await runPipeline(options, options);
  const syncBytes = writeBytes() - before;
  const second = await measuredPublish(db, dir);
  await sim.close();
  const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;
  const p1 = first.result;
  const p2 = second.result;
  return `| ${months} months, ${2 * jobsPerKind} jobs (file ${mb(statSync(db).size)}) | ${p1.written} files, ${mb(p1.bytes)} Parquet, ${mb(first.writeBytes)} write_bytes, ${first.ms.toFixed(0)} ms | ${p2.written} files, ${mb(p2.bytes)} Parquet, ${mb(second.writeBytes)} write_bytes, ${second.ms.toFixed(0)} ms (${p2.unchanged} unchanged) | ${mb(syncBytes)} |`;
}

/** One publish on the synced file, with the bytes this process wrote meanwhile (/proc/self/io). */
async function measuredPublish(
  db: string,
  dir: string,
): Promise<{ result: PublishResult; writeBytes: number; ms: number }> {
  const database = await openWriter(db);
  try {
    const before = writeBytes();
    const started = performance.now();
    const result = await publishDataset({ db: database, dir });
    return { result, writeBytes: writeBytes() - before, ms: performance.now() - started };
  } finally {
    await database.close();
  }
}

const HELP = `Usage: npm run bench:reads [-- publish]

Measures, side by side in one run: reads during a back-fill (a CLI query answered by the
writer over its socket, the same query on the idle file, and a snapshot copy as the rejected
alternative), then the cost of a publish after one new job at 3 and 12 months of history.
With \`publish\`, the publish cost only. Prints markdown tables on stdout.
`;

async function main(): Promise<void> {
  const arg = process.argv[2];
  if (arg === '--help' || arg === '-h') {
    process.stdout.write(HELP);
    return;
  }
  if (arg !== undefined && arg !== 'publish') {
    process.stderr.write(`bench:reads: unknown argument ${arg}; see \`npm run bench:reads -- --help\`\n`);
    process.exitCode = 2;
    return;
  }
  const root = mkdtempSync(join(tmpdir(), 'tsync-bench-reads-'));
  try {
    // `npm run bench:reads -- publish` measures the publish only.
    if (process.argv[2] !== 'publish') await readsDuringBackfill(root);
    const rows = [await publishCost(root, 3), await publishCost(root, 12)];
    process.stdout.write(
      [
        '| history | first publish | publish after one new job | the sync of that job, write_bytes |',
        '|---|---|---|---|',
        ...rows,
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();

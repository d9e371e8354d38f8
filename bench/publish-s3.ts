/**
 * `npm run bench:publish-s3`: a publish to an S3 server beside the local publish of the same file,
 * alternated in one run: the first publish, then a publish after one new job, at each account size
 * of `--jobs` (scaleDataset: ~800 words a job). Each publish is bench/publish-child.ts in a process
 * of its own under `/usr/bin/time -f "%e %M"` (wall seconds, peak RSS in KiB). The S3 server is
 * s3rver over HTTP on 127.0.0.1, in this process; credentials reach the SDK as its environment.
 *
 * The first size is back-filled from the simulator with the built CLI; a larger size is that file
 * copied N times by bench/copy-history.ts (a multiple of the first size). Prints a markdown table.
 *
 *   node dist/bench/publish-s3.js [--jobs 10000,100000] [--rounds 2] [--dir DIR]
 *   node dist/bench/publish-s3.js --db FILE --jobs N --base M [--rounds 1]
 *
 * With --db, FILE (of N jobs, copied by copy-history.js from a back-fill of M jobs) is measured as
 * it is, the simulator serving the M jobs its checkpoints stand at; it is left in place.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../src/util/paths.js';
import { cliBin } from './cli-run.js';
import { scaleDataset } from './datasets.js';
import { SimProcess } from './sim-process.js';

const BUCKET = 'bench';
const NEW_JOB_AGO_MS = 60_000;

interface Options {
  readonly jobs: number[];
  readonly rounds: number;
  readonly dir: string | undefined;
  readonly db: string | undefined;
  readonly base: number | undefined;
}

function parseArgs(argv: readonly string[]): Options {
  let jobs = [10_000, 100_000];
  let rounds = 2;
  let dir: string | undefined;
  let db: string | undefined;
  let base: number | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const value = argv[i + 1] ?? '';
    if (flag === '--jobs') jobs = value.split(',').map(Number);
    else if (flag === '--rounds') rounds = Number(value);
    else if (flag === '--dir') dir = value;
    else if (flag === '--db') db = value;
    else if (flag === '--base') base = Number(value);
    else throw new Error(`unknown argument ${flag}; see the usage at the top of bench/publish-s3.ts`);
    i += 1;
  }
  const first = base ?? jobs[0] ?? 0;
  if (jobs.some((n) => !Number.isInteger(n) || n <= 0 || n % first !== 0 || n % 2 !== 0)) {
    throw new Error('--jobs: even whole numbers, each a multiple of the first (or of --base)');
  }
  if ((db === undefined) !== (base === undefined)) throw new Error('--db and --base go together');
  return { jobs, rounds, dir, db, base };
}

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Run> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

interface Measured {
  readonly seconds: number;
  readonly peakMiB: number;
  readonly written: number;
  readonly unchanged: number;
  readonly bytes: number;
}

async function publishOnce(
  db: string,
  target: string,
  env: NodeJS.ProcessEnv,
  endpoint: string,
): Promise<Measured> {
  const child = join(projectRoot(), 'dist', 'bench', 'publish-child.js');
  const args = [
    '-f',
    '%e %M',
    process.execPath,
    child,
    db,
    target,
    ...(target.startsWith('s3://') ? [endpoint] : []),
  ];
  const result = await run('/usr/bin/time', args, env);
  if (result.code !== 0) throw new Error(`publish to ${target} failed: ${result.stderr}`);
  const [seconds = 'NaN', kib = 'NaN'] = result.stderr.trim().split('\n').at(-1)?.split(' ') ?? [];
  const published = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as {
    written: number;
    unchanged: number;
    bytes: number;
  };
  return { seconds: Number(seconds), peakMiB: Number(kib) / 1024, ...published };
}

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const root = options.dir ?? mkdtempSync(join(tmpdir(), 'tsync-bench-s3-'));
  mkdirSync(root, { recursive: true });
  const S3rver = createRequire(import.meta.url)('s3rver') as new (
    o: Record<string, unknown>,
  ) => S3rverInstance;
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: join(root, 's3rver'),
    configureBuckets: [{ name: BUCKET, configs: [] }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const base = options.base ?? options.jobs[0] ?? 10_000;
  const sim = await SimProcess.start(scaleDataset(base));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: process.env['HOME'] ?? root,
    TSYNC_BASE_URL: sim.url,
    TSYNC_API_KEY: sim.apiKey,
    // As the scale phase runs its commands: a limiter that shapes nothing, its page size and slices.
    TSYNC_RATE_LIMIT: '1000',
    TSYNC_PAGE_SIZE: '100',
    TSYNC_CONCURRENCY: '2',
    TSYNC_LOG_LEVEL: 'warn',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'us-east-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    MALLOC_ARENA_MAX: '1',
    MALLOC_MMAP_THRESHOLD_: '262144',
  };
  const bin = cliBin(projectRoot());
  const say = (text: string) => process.stderr.write(`${new Date().toISOString()} ${text}\n`);
  const rows: string[] = [];
  try {
    const baseDb = join(root, `jobs-${base}.duckdb`);
    if (options.db === undefined) {
      say(`back-filling ${base} jobs`);
      const filled = await run(process.execPath, [bin, 'sync', '--db', baseDb], env);
      if (filled.code !== 0) throw new Error(`back-fill failed: ${filled.stderr}`);
    }
    for (const jobs of options.jobs) {
      const db = options.db ?? (jobs === base ? baseDb : join(root, `jobs-${jobs}.duckdb`));
      if (options.db === undefined && jobs !== base) {
        say(`copying the history to ${jobs} jobs`);
        const copy = join(projectRoot(), 'dist', 'bench', 'copy-history.js');
        const copied = await run(process.execPath, [copy, baseDb, db, String(jobs / base)], env);
        if (copied.code !== 0) throw new Error(`copy-history failed: ${copied.stderr}`);
      }
      for (let round = 1; round <= options.rounds; round += 1) {
        const local = join(root, `published-${jobs}-${round}`);
        const bucket = `s3://${BUCKET}/published-${jobs}-${round}`;
        // Alternated: local first in odd rounds, S3 first in even ones.
        const order = round % 2 === 1 ? [local, bucket] : [bucket, local];
        const first = new Map<string, Measured>();
        for (const target of order) {
          say(`${jobs} jobs, round ${round}: first publish to ${target}`);
          first.set(target, await publishOnce(db, target, env, endpoint));
        }
        say(`${jobs} jobs, round ${round}: one new job`);
        await sim.addJobs(1, 'done', NEW_JOB_AGO_MS);
        const synced = await run(process.execPath, [bin, 'sync', '--db', db], env);
        if (synced.code !== 0) throw new Error(`sync of the new job failed: ${synced.stderr}`);
        const after = new Map<string, Measured>();
        for (const target of order) {
          say(`${jobs} jobs, round ${round}: publish after one new job to ${target}`);
          after.set(target, await publishOnce(db, target, env, endpoint));
        }
        rows.push(row(jobs, round, 'first publish', first.get(local), first.get(bucket)));
        rows.push(row(jobs, round, 'after one new job', after.get(local), after.get(bucket)));
        say(`measured:\n${rows.slice(-2).join('\n')}`);
        rmSync(local, { recursive: true, force: true });
      }
      if (options.db === undefined && jobs !== base) rmSync(db, { force: true });
    }
  } finally {
    await sim.close();
    await server.close();
    if (options.dir === undefined) rmSync(root, { recursive: true, force: true });
  }
  process.stdout.write(
    [
      '| jobs | round | publish | local folder: wall, peak RSS | S3 server: wall, peak RSS | S3 / local: wall, peak | files, MB written |',
      '|---|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
}

function row(jobs: number, round: number, what: string, local?: Measured, s3?: Measured): string {
  if (!local || !s3) throw new Error('a publish was not measured');
  const cell = (m: Measured) => `${m.seconds.toFixed(2)} s, ${m.peakMiB.toFixed(0)} MiB`;
  const ratio = `${(s3.seconds / local.seconds).toFixed(2)}x, ${(s3.peakMiB / local.peakMiB).toFixed(2)}x`;
  const files = `${s3.written} (${s3.unchanged} unchanged), ${(s3.bytes / 1e6).toFixed(1)} MB`;
  return `| ${jobs.toLocaleString('en-US')} | ${round} | ${what} | ${cell(local)} | ${cell(s3)} | ${ratio} | ${files} |`;
}

await main();

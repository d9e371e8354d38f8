/**
 * `node dist/bench/compare-incr.js --old DIR`: an incremental sync and a `sync --full` of this
 * checkout's CLI (or --new DIR's) beside another built checkout's, on accounts of short jobs,
 * alternating the two.
 *
 * Per account size: one simulator (this checkout's) serves both. Each build back-fills a file of
 * its own (with --one-file, only that one build, and both start from copies of its file); then the account grows by 1% new jobs, its 1% pending jobs complete and its oldest job
 * is deleted. Each round copies each build's back-filled file afresh and runs `sync` (incremental)
 * and `sync --full` on the copies, the builds alternating first and second from round to round.
 * Every sync is `bin/transcript-sync` (the launcher, its malloc settings) under `/usr/bin/time`;
 * its bytes written are `write_bytes` of this process's /proc/self/io across the run: a reaped
 * child's I/O counts are added to its parent's, and this process writes nothing meanwhile.
 * Prints a Markdown table of medians and new/old ratios on stdout; progress on stderr.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { median, removeDb } from './phase-kit.js';
import { SimProcess } from './sim-process.js';
import type { SimChildOptions } from './sim-service.js';
import { writeBytes } from './tasks.js';

const DAY_MS = 86_400_000;
const say = (line: string) => process.stderr.write(`[compare-incr ${new Date().toISOString()}] ${line}\n`);

const { values } = parseArgs({
  options: {
    old: { type: 'string' },
    new: { type: 'string' },
    jobs: { type: 'string', default: '10000,100000' },
    rounds: { type: 'string', default: '3' },
    utterances: { type: 'string', default: '3' },
    words: { type: 'string', default: '8' },
    dir: { type: 'string' },
    'one-file': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help || !values.old) {
  process.stdout.write(
    'Usage: node dist/bench/compare-incr.js --old DIR [--new DIR] [--jobs 10000,100000] [--rounds 3] [--utterances 3] [--words 8] [--one-file old|new] [--dir TMP]\n' +
      "DIR: a built checkout (npm run build). Sync figures of --old's CLI beside --new's (default: this checkout).\n" +
      '--one-file: only that build back-fills; both run on copies of its file (the code apart from the file).\n',
  );
  process.exit(values.help ? 0 : 2);
}

const NEW = resolve(values.new ?? join(import.meta.dirname, '..', '..'));
const OLD = resolve(values.old);
const SIZES = values.jobs.split(',').map(Number);
const ROUNDS = Number(values.rounds);
const ONE_FILE = values['one-file'];
if (ONE_FILE !== undefined && ONE_FILE !== 'old' && ONE_FILE !== 'new') {
  process.stderr.write('--one-file: old or new\n');
  process.exit(2);
}

interface Variant {
  readonly name: 'old' | 'new';
  readonly bin: string;
}
const VARIANTS: readonly Variant[] = [
  { name: 'old', bin: join(OLD, 'bin', 'transcript-sync') },
  { name: 'new', bin: join(NEW, 'bin', 'transcript-sync') },
];

interface Figures {
  readonly wallS: number;
  readonly cpuS: number;
  readonly peakMiB: number;
  readonly writtenMB: number;
}

/** One `sync` of a build's CLI under /usr/bin/time; throws unless it exits 0. */
async function sync(
  variant: Variant,
  db: string,
  sim: SimProcess,
  extra: readonly string[],
): Promise<Figures> {
  const args = ['-f', 'TIME %e %U %S %M', variant.bin, 'sync', '--db', db, '--rate-limit', '1000', '--json'];
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: process.env['HOME'] ?? '/tmp',
    TMPDIR: process.env['TMPDIR'] ?? '/tmp',
    TSYNC_BASE_URL: sim.url,
    TSYNC_API_KEY: sim.apiKey,
    TSYNC_LOG_LEVEL: 'warn',
  };
  const before = writeBytes();
  const child = spawn('/usr/bin/time', [...args, ...extra], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8_192);
  });
  const code = await new Promise<number | null>((done) => child.once('close', (c) => done(c)));
  const written = writeBytes() - before;
  const time = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
  if (code !== 0 || !time)
    throw new Error(`${variant.name} sync ${extra.join(' ')} exited ${code}: ${stderr}`);
  const summary = stdout.length > 400 ? `${stdout.slice(0, 400)}...` : stdout;
  say(`  ${variant.name} ${extra.join(' ') || 'incremental'}: ${summary.replace(/\s+/g, ' ')}`);
  return {
    wallS: Number(time[1]),
    cpuS: Number(time[2]) + Number(time[3]),
    peakMiB: Number(time[4]) / 1024,
    writtenMB: written / 1e6,
  };
}

function account(jobs: number, now: Date): SimChildOptions {
  const to = new Date(now.getTime() - 3_600_000);
  return {
    preRecorded: Math.ceil(jobs / 2),
    live: Math.floor(jobs / 2),
    utterancesPerJob: Number(values.utterances),
    wordsPerUtterance: Number(values.words),
    seed: 21,
    from: new Date(to.getTime() - 90 * DAY_MS).toISOString(),
    to: to.toISOString(),
    limitCap: 1_000,
  };
}

type Step = 'backfill' | 'incremental' | '--full';

async function atSize(jobs: number, dir: string): Promise<void> {
  say(`${jobs} jobs: starting the simulator`);
  const sim = await SimProcess.start(account(jobs, new Date()));
  const runs = new Map<string, Figures[]>();
  const keep = (variant: Variant, step: Step, figures: Figures) => {
    const key = `${step}/${variant.name}`;
    runs.set(key, [...(runs.get(key) ?? []), figures]);
    say(
      `${jobs} ${step} ${variant.name}: ${figures.wallS} s wall, ${figures.cpuS.toFixed(2)} s CPU, ` +
        `${figures.peakMiB.toFixed(0)} MiB, ${figures.writtenMB.toFixed(1)} MB written`,
    );
  };
  const seeders = VARIANTS.filter((v) => !ONE_FILE || v.name === ONE_FILE);
  const start = (v: Variant) => join(dir, `${jobs}-${ONE_FILE ?? v.name}-start.duckdb`);
  const work = (v: Variant) => join(dir, `${jobs}-${v.name}-work.duckdb`);
  try {
    const pending = await sim.addJobs(Math.max(1, Math.round(jobs / 100)), 'queued', 5 * 60_000);
    for (const v of seeders) keep(v, 'backfill', await sync(v, start(v), sim, []));
    for (const v of seeders) {
      if (existsSync(`${start(v)}.wal`)) throw new Error(`${start(v)} left a WAL behind`);
      say(`${jobs} ${v.name}: back-filled file ${(statSync(start(v)).size / 1e6).toFixed(1)} MB`);
    }
    await sim.addJobs(Math.max(1, Math.round(jobs / 100)), 'done', 60_000);
    await sim.completeJobs(pending);
    await sim.deleteOldest(1);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
      for (const [step, extra] of [
        ['incremental', []],
        ['--full', ['--full']],
      ] as const) {
        for (const v of order) {
          removeDb(work(v));
          copyFileSync(start(v), work(v));
          keep(v, step, await sync(v, work(v), sim, extra));
          removeDb(work(v));
        }
      }
    }
  } finally {
    await sim.close();
  }
  for (const step of ['incremental', '--full', 'backfill'] as const) {
    const old = runs.get(`${step}/old`) ?? [];
    const now = runs.get(`${step}/new`) ?? [];
    if (old.length === 0 || now.length === 0) continue;
    const cell = (pick: (f: Figures) => number, digits: number) => {
      const o = median(old.map(pick));
      const n = median(now.map(pick));
      return `${o.toFixed(digits)} / ${n.toFixed(digits)} (${(n / o).toFixed(2)}x)`;
    };
    process.stdout.write(
      `| ${jobs.toLocaleString('en-US')} | ${step} (${Math.min(old.length, now.length)}) | ${cell((f) => f.wallS, 2)} | ` +
        `${cell((f) => f.cpuS, 2)} | ${cell((f) => f.peakMiB, 0)} | ${cell((f) => f.writtenMB, 1)} |\n`,
    );
  }
}

process.stdout.write(
  '| jobs | step (runs) | wall s, old / new | CPU s | peak RSS MiB | written MB |\n|---|---|---|---|---|---|\n',
);
const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'compare-incr-'));
try {
  for (const jobs of SIZES) await atSize(jobs, dir);
} finally {
  if (!values.dir) rmSync(dir, { recursive: true, force: true });
}

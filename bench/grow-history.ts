/**
 * Growing a stored history, measured: a copy of a history file built with `simulate --jobs H
 * --utterances 40 --words 15 --seed 7` (its default timeline: 2,000 jobs a day from 2025-01-01),
 * then the built CLI of a checkout, each command in a process of its own (bench/cli-run.ts):
 * a back-fill of the 10,000 jobs that follow (`simulate --jobs H+10000`, prefix-stable: the oldest
 * H are the stored ones; `sync --since` the day the history ends), an idle run, one new job, and
 * `sync --full`. Prints one JSON line a step: peak RSS, V8 heap, CPU, wall time, bytes written
 * (write_bytes) and the file's growth.
 *
 *   node dist/bench/grow-history.js CHECKOUT HISTORY_FILE H LABEL [STEPS]
 *
 * STEPS: comma-separated of backfill,idle,one,full (default all). The copy is LABEL.duckdb beside
 * HISTORY_FILE; it is left there to be inspected (delete it after).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cliBin, runCli } from './cli-run.js';

const DAY_MS = 86_400_000;
const START_MS = Date.parse('2025-01-01T00:00:00Z');
const JOBS_PER_DAY = 2_000;
const NEW_JOBS = 10_000;

/** Where the simulator's default timeline is after `jobs` jobs. */
const dayAfter = (jobs: number): string => new Date(START_MS + (jobs / JOBS_PER_DAY) * DAY_MS).toISOString();

async function simulator(checkout: string, jobs: number): Promise<{ child: ChildProcess; url: string }> {
  const args = ['simulate', '--port', '0', '--jobs', String(jobs), '--utterances', '40', '--words', '15'];
  const child = spawn(process.execPath, [cliBin(checkout), ...args, '--seed', '7'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /TSYNC_BASE_URL=(\S+)/.exec(text);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the simulator exited (${code})`)));
  });
  return { child, url };
}

function fileBytes(db: string): number {
  return [db, `${db}.wal`].reduce((n, f) => n + (existsSync(f) ? statSync(f).size : 0), 0);
}

async function main(): Promise<void> {
  const [checkout, history, jobsText, label, stepsText = 'backfill,idle,one,full'] = process.argv.slice(2);
  if (!checkout || !history || !jobsText || !label) {
    throw new Error('usage: grow-history.js CHECKOUT HISTORY_FILE H LABEL [STEPS]');
  }
  const stored = Number(jobsText);
  const db = join(dirname(history), `${label}.duckdb`);
  rmSync(`${db}.wal`, { force: true });
  copyFileSync(history, db);
  const env = (url: string): Record<string, string> => ({
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: process.env['HOME'] ?? '/tmp',
    TSYNC_BASE_URL: url,
    TSYNC_API_KEY: 'sim-key',
    TSYNC_RATE_LIMIT: '1000',
    TSYNC_LOG_LEVEL: 'warn',
  });
  const step = async (name: string, upstreamJobs: number, args: string[]): Promise<void> => {
    const sim = await simulator(checkout, upstreamJobs);
    const before = fileBytes(db);
    try {
      const run = await runCli(cliBin(checkout), [...args, '--db', db], env(sim.url));
      const grown = fileBytes(db) - before;
      const probe = run.probe;
      const figures = {
        label,
        step: name,
        exit: run.code,
        wallS: run.wallMs / 1e3,
        cpuS: probe ? probe.cpuMs / 1e3 : null,
        peakRssMiB: probe ? probe.peakRssBytes / 2 ** 20 : null,
        peakHeapMiB: probe ? probe.peakHeapBytes / 2 ** 20 : null,
        writtenMB: probe ? probe.writeBytes / 1e6 : null,
        grownMB: grown / 1e6,
        fileMB: fileBytes(db) / 1e6,
        ...(run.code === 0 ? {} : { error: run.stderrTail.trim().split('\n').at(-1) }),
      };
      console.log(JSON.stringify(figures));
    } finally {
      sim.child.kill();
    }
  };
  const steps = new Set(stepsText.split(','));
  const all = stored + NEW_JOBS;
  if (steps.has('backfill'))
    await step('back-fill 10,000', all, ['sync', '--since', dayAfter(stored), '--json']);
  if (steps.has('idle')) await step('idle incremental', all, ['sync', '--json']);
  if (steps.has('one')) await step('one new job', all + 1, ['sync', '--since', dayAfter(all), '--json']);
  if (steps.has('full')) await step('sync --full', all + 1, ['sync', '--full', '--json']);
}

await main();

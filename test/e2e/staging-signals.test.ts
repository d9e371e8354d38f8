/**
 * SIGINT or SIGTERM on the real process (bin over dist/) while `export` stages its tables or
 * `compact` copies the file: the staging folder or the copy, and the writer's lock, are removed
 * before the process ends by the signal, and the data is as it was. A staging folder a kill left
 * is removed by the next export once its process is gone. Each child is stopped (SIGSTOP) as soon as its work folder appears, so
 * that the signal lands while the folder is in use, however fast the machine.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, watch, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { runMain, type StartedCli, startCli } from '../helpers/cli.js';
import { fingerprint } from '../helpers/db-fingerprint.js';
import { syncOnce } from '../helpers/sync.js';
import { fileTempDir, tempDir } from '../helpers/tmp.js';

const template = fileTempDir('tsync-staging-signals-');
const templateDb = join(template.dir, 'template.duckdb');

beforeAll(async () => {
  const sim = await startSimulator({ preRecorded: 300, live: 100, seed: 17, utterancesPerJob: 12 });
  try {
    await syncOnce(sim, templateDb);
  } finally {
    await sim.close();
  }
});
afterAll(() => template.remove());

function copyOfTemplate(): string {
  const db = join(tempDir('tsync-staging-'), 'data.duckdb');
  copyFileSync(templateDb, db);
  return db;
}

/** Starts the CLI and stops it (SIGSTOP) the moment an entry of `dir` matching `name` appears. */
async function stoppedWhenMade(
  args: readonly string[],
  dir: string,
  name: RegExp,
): Promise<{ cli: StartedCli; made: string }> {
  const made = (names: readonly string[]) => names.find((entry) => name.test(entry));
  let cli: StartedCli | undefined;
  const found = new Promise<string>((resolve, reject) => {
    const watcher = watch(dir, (_event, entry) => {
      if (entry === null || !name.test(entry) || !cli) return;
      cli.child.kill('SIGSTOP');
      watcher.close();
      resolve(entry);
    });
    cli = startCli(args, {});
    void cli.done.then(() => {
      watcher.close();
      reject(new Error(`ended before ${name} appeared in ${dir}`));
    });
  });
  const entry = await found;
  if (!cli) throw new Error('not started');
  expect(made(readdirSync(dir))).toBe(entry);
  return { cli, made: entry };
}

/** Lets a stopped child go on and stops it again the moment an entry of `dir` matching `name` appears. */
async function stoppedAgainWhenMade(cli: StartedCli, dir: string, name: RegExp): Promise<string> {
  const made = (names: readonly string[]) => names.find((entry) => name.test(entry));
  const found = new Promise<string>((resolve) => {
    const watcher = watch(dir, (_event, entry) => {
      if (entry === null || !name.test(entry)) return;
      cli.child.kill('SIGSTOP');
      watcher.close();
      resolve(entry);
    });
    const there = made(readdirSync(dir));
    if (there !== undefined) {
      watcher.close();
      resolve(there);
    } else cli.child.kill('SIGCONT');
  });
  return found;
}

/** Sends `signal` to a stopped child, lets it go on, and waits for its end. */
async function signalStopped(cli: StartedCli, signal: NodeJS.Signals) {
  cli.child.kill(signal);
  cli.child.kill('SIGCONT');
  return cli.done;
}

describe.each(['SIGINT', 'SIGTERM'] as const)('%s while a command works beside its output', (signal) => {
  it('export: the staging folder is gone and the output folder as it was', async () => {
    const db = copyOfTemplate();
    const out = join(tempDir('tsync-staging-'), 'exported');
    mkdirSync(out);
    writeFileSync(join(out, 'notes.txt'), 'mine\n');
    const { cli, made } = await stoppedWhenMade(['export', '--out', out, '--db', db], out, /^\.export-/);
    const result = await signalStopped(cli, signal);
    expect(result.signal, result.stderr).toBe(signal);
    expect(existsSync(join(out, made))).toBe(false);
    expect(readdirSync(out)).toEqual(['notes.txt']);
  });

  it('export into a folder it made: that folder is gone with the staging folder', async () => {
    const db = copyOfTemplate();
    const parent = tempDir('tsync-staging-');
    const out = join(parent, 'exported');
    const { cli } = await stoppedWhenMade(['export', '--out', out, '--db', db], parent, /^exported$/);
    await stoppedAgainWhenMade(cli, out, /^\.export-/);
    const result = await signalStopped(cli, signal);
    expect(result.signal, result.stderr).toBe(signal);
    expect(readdirSync(parent)).toEqual([]);
  });

  it('compact: the copy and the writer lock are gone and the file holds what it held', async () => {
    const db = copyOfTemplate();
    const before = await fingerprint(db);
    const { cli } = await stoppedWhenMade(['compact', '--db', db], dirname(db), /\.compact-tmp$/);
    expect(existsSync(`${db}.lock`)).toBe(true);
    const result = await signalStopped(cli, signal);
    expect(result.signal, result.stderr).toBe(signal);
    expect(readdirSync(dirname(db))).toEqual([basename(db)]);
    expect(await fingerprint(db)).toEqual(before);
  });
});

describe('a staging folder a kill left', () => {
  it('is removed by the next export once its process is gone; a live one is left alone', async () => {
    const db = copyOfTemplate();
    const out = join(tempDir('tsync-staging-'), 'exported');
    const gone = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['-e', '']);
      child.on('exit', () => resolve(child.pid ?? 0));
    });
    const stale = join(out, `.export-${gone}-0a1b2c3d`);
    const live = join(out, `.export-${process.pid}-0a1b2c3d`);
    for (const dir of [stale, live]) {
      mkdirSync(join(dir, 'jobs'), { recursive: true });
      writeFileSync(join(dir, 'jobs', 'data_0.parquet'), 'partial');
    }
    const result = await runMain(['export', '--out', out, '--db', db]);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });
});

/**
 * A rewrite of the file (`compact`) that the file system stops taking: a full disk, a quota or a
 * file-size limit. The real process under a file-size limit (`ulimit -f`, below the file's size, so
 * the copy hits it and the file itself is never written past it) stands for all of them: one line
 * naming the copy and what it needs, exit 1, the file as it was and no copy left beside it.
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { BIN, type CliResult, childEnv } from '../helpers/cli.js';
import { fingerprint } from '../helpers/db-fingerprint.js';
import { syncOnce } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** The CLI with no file grown past `kib` KiB (the shell's `ulimit -f`). */
function runLimited(args: readonly string[], kib: number): Promise<CliResult> {
  const child = spawn('sh', ['-c', `ulimit -f ${kib} && exec "$@"`, 'sh', process.execPath, BIN, ...args], {
    env: childEnv({}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
}

describe('a rewrite with no room for its copy', () => {
  it('compact says so in one line, exit 1, and leaves the file as it was', async () => {
    sim = await startSimulator({ preRecorded: 60, live: 20, seed: 3 });
    const dir = tempDir('tsync-no-room-');
    const db = join(dir, 'data.duckdb');
    await syncOnce(sim, db);
    const before = await fingerprint(db);
    const result = await runLimited(['compact', '--db', db], Math.floor(statSync(db).size / 2048));
    expect(result.code, result.stderr).toBe(1);
    // The line that it started, then the one of the failure.
    const errors = result.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.level >= 50);
    expect(errors, result.stderr).toHaveLength(1);
    const [error] = errors.map((line) => line.msg);
    expect(error).toContain(`could not write the copy of ${db} in ${db}.compact-tmp: file too large`);
    expect(error).toContain('needs room beside the file for a copy of it');
    expect(readdirSync(dir)).toEqual(['data.duckdb']);
    expect(await fingerprint(db)).toEqual(before);
  });
});

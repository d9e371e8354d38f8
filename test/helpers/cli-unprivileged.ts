/**
 * Runs the CLI as a user that file permissions apply to. Tests that need a read-only file or
 * directory cannot use root (root writes anyway), so under root the child runs as `nobody`
 * (uid/gid 65534); under any other user, as that user. `grant` opens a test folder to that child.
 */
import { spawn } from 'node:child_process';
import { chmodSync, chownSync } from 'node:fs';
import { BIN, type CliResult, childEnv } from './cli.js';

const NOBODY = 65_534;
const isRoot = (): boolean => process.getuid?.() === 0;

/** The uid and gid the child runs as. */
export function unprivilegedIds(): { uid: number; gid: number } {
  return isRoot()
    ? { uid: NOBODY, gid: NOBODY }
    : { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
}

/** Lets the unprivileged child into `dir` (traverse and read, not write). */
export function grantRead(dir: string): void {
  chmodSync(dir, 0o755);
}

/** Makes `path` the unprivileged child's own (as if it had created it). */
export function giveToChild(path: string, mode: number): void {
  const { uid, gid } = unprivilegedIds();
  if (isRoot()) chownSync(path, uid, gid);
  chmodSync(path, mode);
}

export function runCliUnprivileged(
  args: readonly string[],
  env: Record<string, string>,
  home: string,
): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: childEnv({ HOME: home, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: home,
    ...unprivilegedIds(),
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
}

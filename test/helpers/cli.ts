import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'transcript-sync');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Env for a child: only what it needs, so a developer's own TSYNC_* settings never leak in. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'], HOME: process.env['HOME'], TSYNC_LOG_LEVEL: 'warn', ...extra };
}

export function startCli(
  args: readonly string[],
  env: Record<string, string>,
): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

export function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return startCli(args, env).done;
}

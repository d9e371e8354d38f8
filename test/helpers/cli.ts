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

export interface StartedCli {
  child: ChildProcess;
  done: Promise<CliResult>;
  /** Resolves once stderr or stdout matches, the process ended, or 30 s passed. */
  output(pattern: RegExp): Promise<void>;
}

export function startCli(args: readonly string[], env: Record<string, string>): StartedCli {
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
  const output = async (pattern: RegExp) => {
    const deadline = Date.now() + 30_000;
    let ended = false;
    void done.then(() => {
      ended = true;
    });
    while (!ended && Date.now() < deadline && !pattern.test(stderr) && !pattern.test(stdout)) {
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  return { child, done, output };
}

export function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return startCli(args, env).done;
}

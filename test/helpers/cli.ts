import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { JOBS } from '../../jobs/index.js';
import { main } from '../../src/cli/program.js';

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

/**
 * Runs the program in this process, as the bin would (the worker's jobs handed in) with `env` for its environment (plus
 * TSYNC_LOG_LEVEL=warn, as childEnv gives a spawned one) and `stdin` as its standard input: the
 * same exit code and output as runCli, without a process start-up (no dist/ needed either).
 */
export async function runMain(
  args: readonly string[],
  env: Record<string, string> = {},
  stdin = '',
): Promise<CliResult & { code: number }> {
  const stdout = new TextSink();
  const stderr = new TextSink();
  const code = await main(args, {
    stdout,
    stderr,
    env: { TSYNC_LOG_LEVEL: 'warn', ...env },
    stdin: Readable.from([stdin]),
    // Composed as bin/transcript-sync composes it.
    jobs: async () => JOBS,
  });
  return { code, signal: null, stdout: stdout.text, stderr: stderr.text };
}

/** A stream that keeps what is written to it, as a pipe would (not a terminal). */
class TextSink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/**
 * Stderr as a person reads it: off a terminal a command that logs writes JSON lines only, its
 * summary and closing error among them (`msg` the text a terminal shows); other lines as they are.
 */
export function shownLines(stderr: string): string[] {
  return stderr
    .trim()
    .split('\n')
    .map((line) => {
      if (!line.startsWith('{')) return line;
      const entry = JSON.parse(line) as { msg?: unknown };
      return typeof entry.msg === 'string' ? entry.msg : line;
    });
}

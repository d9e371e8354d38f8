/**
 * One command of the built CLI (`bin/transcript-sync`, what users run) in a child process of its
 * own, measured from outside: wall time from spawn to exit, and from inside by bench/cli-probe.ts
 * (loaded with `node --import`), which reports the process's peak RSS, V8 heap, CPU time and bytes
 * written on a pipe as it exits.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PROBE_FD, type ProbeFigures } from './cli-probe.js';

const PROBE = pathToFileURL(fileURLToPath(new URL('./cli-probe.js', import.meta.url))).href;

/** Most bytes of stdout kept (a sync's --json summary, a report); the rest is counted, not kept. */
const STDOUT_KEEP_BYTES = 1 << 20;
/** Bytes of stderr kept, from its end: enough for the error that ended a command. */
const STDERR_TAIL_BYTES = 8_192;

export interface CliRun {
  /** Exit code, or null when a signal ended the process. */
  readonly code: number | null;
  readonly signal: string | null;
  readonly wallMs: number;
  /** The first STDOUT_KEEP_BYTES of stdout. */
  readonly stdout: string;
  readonly stderrTail: string;
  /** Absent when the process died before its exit handlers ran (a signal, a V8 abort). */
  readonly probe?: ProbeFigures;
}

/** The CLI of a checkout: this one's, or the bench's --baseline. */
export function cliBin(checkout: string): string {
  return join(checkout, 'bin', 'transcript-sync');
}

function collect(stream: Readable, keep: (text: string, chunk: Buffer) => string): Promise<string> {
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text = keep(text, chunk);
  });
  return new Promise((resolve) => stream.once('close', () => resolve(text)));
}

/** Runs `bin args` with exactly `env` (nothing inherited), its stdin closed. */
export async function runCli(
  bin: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<CliRun> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', PROBE, bin, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  const [stdout, stderr, probe] = child.stdio.slice(1, PROBE_FD + 1) as Readable[];
  if (!stdout || !stderr || !probe) throw new Error('the CLI child has no pipes');
  const outputs = Promise.all([
    collect(stdout, (text, chunk) =>
      text.length < STDOUT_KEEP_BYTES
        ? text + chunk.toString().slice(0, STDOUT_KEEP_BYTES - text.length)
        : text,
    ),
    collect(stderr, (text, chunk) => (text + chunk.toString()).slice(-STDERR_TAIL_BYTES)),
    collect(probe, (text, chunk) => text + chunk.toString()),
  ]);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
  });
  const wallMs = performance.now() - started;
  const [out, err, figures] = await outputs;
  const line = figures.trim();
  return {
    code,
    signal,
    wallMs,
    stdout: out,
    stderrTail: err,
    ...(line.startsWith('{') ? { probe: JSON.parse(line) as ProbeFigures } : {}),
  };
}

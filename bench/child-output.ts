/**
 * Running a measured child (bench/child.ts) from the bench and reading its one JSON line. With
 * `cpuProfileDir` the child runs under `node --cpu-prof`, for finding where a phase's time goes.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface TaskOutput<R = object> {
  readonly result: R;
  /** Peak resident set of the child, MiB. */
  readonly peakRssMb: number;
  /** User + system CPU time of the child, ms. */
  readonly cpuMs: number;
  /** Peaks of the V8 heap (total, used) and of memory outside it held by JS objects, MiB. */
  readonly memory: { readonly heapTotalMb: number; readonly heapUsedMb: number; readonly externalMb: number };
  /** Bytes the child wrote to storage (`/proc/self/io` write_bytes), the database's checkpoints included. */
  readonly writeBytes: number;
}

const CHILD = fileURLToPath(new URL('./child.js', import.meta.url));

/** `checkout`: run the child of another built checkout (the bench's --baseline) instead of this one. */
export async function runTask<R>(
  task: string,
  options: unknown,
  cpuProfileDir?: string,
  checkout?: string,
): Promise<TaskOutput<R>> {
  const script = checkout ? join(checkout, 'dist', 'bench', 'child.js') : CHILD;
  const profile = cpuProfileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`, `--cpu-prof-name=${task}-${Date.now()}.cpuprofile`]
    : [];
  const child = spawn(process.execPath, [...profile, script, task, JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const line = stdout.trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !line.startsWith('{')) {
    throw new Error(`bench task ${task} failed (exit ${code}):\n${stderr.trim() || stdout.trim()}`);
  }
  return JSON.parse(line) as TaskOutput<R>;
}

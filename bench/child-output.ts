/**
 * Running a measured child (bench/child.ts) from the bench and reading its one JSON line. With
 * `cpuProfileDir` the child runs under `node --cpu-prof`, for finding where a phase's time goes.
 * With `--in-process` (runTasksInProcess) the tasks run in the bench's own process instead: the
 * smoke test's mode, which checks that every phase runs and reports, not what it measures.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadTask, writeBytes } from './tasks.js';

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

let inProcess = false;

/**
 * From now on, run this checkout's tasks in this process (a child costs a node start and the
 * task's imports, ~1 s on a loaded 2-core machine; the smoke test runs ~35 of them). Memory, CPU and
 * bytes written are then this process's (memory: since it started; CPU and bytes: during the
 * task), not the task's alone: the figures are printed but mean little.
 */
export function runTasksInProcess(): void {
  inProcess = true;
}

async function runHere<R>(task: string, options: unknown): Promise<TaskOutput<R>> {
  const run = await loadTask(task);
  const before = process.resourceUsage();
  const written = writeBytes();
  const result = (await run(options as never)) as R;
  const usage = process.resourceUsage();
  const memory = process.memoryUsage();
  return {
    result,
    // resourceUsage reports maxRSS in KiB and CPU times in µs.
    peakRssMb: usage.maxRSS / 1024,
    cpuMs: (usage.userCPUTime + usage.systemCPUTime - before.userCPUTime - before.systemCPUTime) / 1000,
    memory: {
      heapTotalMb: memory.heapTotal / 2 ** 20,
      heapUsedMb: memory.heapUsed / 2 ** 20,
      externalMb: memory.external / 2 ** 20,
    },
    writeBytes: writeBytes() - written,
  };
}

/** `checkout`: run the child of another built checkout (the bench's --baseline) instead of this one. */
export async function runTask<R>(
  task: string,
  options: unknown,
  cpuProfileDir?: string,
  checkout?: string,
): Promise<TaskOutput<R>> {
  if (inProcess && !cpuProfileDir && !checkout) return runHere<R>(task, options);
  return runTaskInChild<R>(task, options, cpuProfileDir, checkout);
}

/** As runTask, but in a child process even with `--in-process` (with `--smoke`, one of each task kind). */
export async function runTaskInChild<R>(
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

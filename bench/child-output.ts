/**
 * Running a measured child (bench/child.ts) from the bench and reading its one JSON line. With
 * `cpuProfileDir` the child runs under `node --cpu-prof`, for finding where a phase's time goes.
 * With `--in-process` (runTasksInProcess) the tasks run in the bench's own process instead: the
 * smoke test's mode, which checks that every phase runs and reports, not what it measures.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

/**
 * glibc's malloc as bin/transcript-sync sets it for the program (one arena, blocks of 256 KiB and
 * more handed back; docs/decisions/0005-one-memory-budget.md), unless the environment sets them:
 * glibc reads them only as a process starts, so the bench sets them on the children held to the
 * program's settings (a sync, floor A bounded).
 */
const PROGRAM_MALLOC_ENV = { MALLOC_ARENA_MAX: '1', MALLOC_MMAP_THRESHOLD_: '262144' } as const;
const PROGRAM_TASKS: ReadonlySet<string> = new Set(['sync', 'floor-a-bounded']);

/** The environment of a child running `task`. */
export function childEnv(task: string): NodeJS.ProcessEnv {
  return PROGRAM_TASKS.has(task) ? { ...PROGRAM_MALLOC_ENV, ...process.env } : process.env;
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
  const run = await spawnTask<R>(task, [...profile, script, task, JSON.stringify(options)]);
  if ('error' in run) throw new Error(run.error);
  return run.output;
}

/** How often a watched child's peak RSS is read, ms. */
const WATCH_MS = 20;

/** A watched task's end: its output, or why it has none. */
export type WatchedRun<R> =
  | { readonly output: TaskOutput<R> }
  | { readonly overMb: number }
  | { readonly error: string };

/**
 * As runTaskInChild, but the child is killed as soon as its peak RSS (VmHWM, read every WATCH_MS)
 * passes `limitMb` MiB, and a failure is returned, not thrown: for searches of the settings that
 * hold a budget, where a run past it need not finish.
 */
export async function runTaskWithin<R>(
  task: string,
  options: unknown,
  limitMb: number,
): Promise<WatchedRun<R>> {
  let overMb: number | undefined;
  const run = await spawnTask<R>(task, [CHILD, task, JSON.stringify(options)], (child) => {
    const timer = setInterval(() => {
      const peak = peakRssMb(child.pid);
      if (peak !== undefined && peak > limitMb) {
        overMb = peak;
        child.kill('SIGKILL');
      }
    }, WATCH_MS);
    child.once('close', () => clearInterval(timer));
  });
  if (overMb !== undefined) return { overMb };
  if ('output' in run && run.output.peakRssMb > limitMb) return { overMb: run.output.peakRssMb };
  return run;
}

/** VmHWM of a live process, MiB; undefined once it is gone (or off Linux). */
function peakRssMb(pid: number | undefined): number | undefined {
  try {
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) / 1024;
  } catch {
    return undefined;
  }
}

/** Runs node with `args`, the child of `task`, and reads its one JSON line. */
async function spawnTask<R>(
  task: string,
  args: readonly string[],
  watch?: (child: ChildProcess) => void,
): Promise<{ readonly output: TaskOutput<R> } | { readonly error: string }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv(task) });
  watch?.(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const line = stdout.trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !line.startsWith('{')) {
    return { error: `bench task ${task} failed (exit ${code}):\n${stderr.trim() || stdout.trim()}` };
  }
  return { output: JSON.parse(line) as TaskOutput<R> };
}

/**
 * A measured child process: `node dist/bench/child.js <task> <options JSON>` runs one task (a sync,
 * a floor, the naive loader) and prints one JSON line on stdout: the task's figures plus the
 * process's own peak RSS and CPU time, so nothing the bench itself holds is counted.
 */
import { readFileSync } from 'node:fs';
import type { TaskOutput } from './child-output.js';

type Task = (options: never) => Promise<object>;

const TASKS: Readonly<Record<string, () => Promise<Task>>> = {
  sync: async () => (await import('./task-sync.js')).runSyncTask,
  'floor-a': async () => (await import('./task-floor-a.js')).runFloorA,
  'floor-b': async () => (await import('./task-floor-b.js')).runFloorB,
  naive: async () => (await import('./task-naive.js')).runNaive,
};

/** Peaks of process.memoryUsage(), sampled every SAMPLE_MS: where the RSS goes (JS heap or native). */
const SAMPLE_MS = 50;
const peaks = { heapTotalMb: 0, heapUsedMb: 0, externalMb: 0 };
function sampleMemory(): void {
  const usage = process.memoryUsage();
  peaks.heapTotalMb = Math.max(peaks.heapTotalMb, usage.heapTotal / 2 ** 20);
  peaks.heapUsedMb = Math.max(peaks.heapUsedMb, usage.heapUsed / 2 ** 20);
  peaks.externalMb = Math.max(peaks.externalMb, usage.external / 2 ** 20);
}

async function main(): Promise<void> {
  const sampler = setInterval(sampleMemory, SAMPLE_MS);
  sampler.unref();
  const [name, json] = process.argv.slice(2);
  const load = name === undefined ? undefined : TASKS[name];
  if (!load) throw new Error(`unknown bench task "${name}"; one of ${Object.keys(TASKS).join(', ')}`);
  const task = await load();
  const result = await task(JSON.parse(json ?? '{}') as never);
  clearInterval(sampler);
  sampleMemory();
  const usage = process.resourceUsage();
  const output: TaskOutput = {
    result,
    // resourceUsage reports maxRSS in KiB and CPU times in µs.
    peakRssMb: usage.maxRSS / 1024,
    cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
    memory: peaks,
    writeBytes: writeBytes(),
  };
  process.stdout.write(`${JSON.stringify(output)}\n`);
}

/** Bytes this process caused to be written to storage (Linux `/proc/self/io`); 0 where there is none. */
function writeBytes(): number {
  try {
    return Number(/^write_bytes: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench task failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});

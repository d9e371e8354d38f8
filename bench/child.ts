/**
 * A measured child process: `node dist/bench/child.js <task> <options JSON>` runs one task (a sync,
 * a floor, the naive loader) and prints one JSON line on stdout: the task's figures plus the
 * process's own peak RSS and CPU time, so nothing the bench itself holds is counted.
 */
import { DUCKDB_ALLOCATOR_CONF } from '../src/memory/budget.js';
import type { TaskOutput } from './child-output.js';
import { loadTask, writeBytes } from './tasks.js';

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
  // A sync's child is a process of the program (src/cli/main.ts sets the same, before DuckDB
  // loads), and the bounded floor is held to the program's settings; floor A, floor B and the naive
  // loader keep DuckDB's defaults.
  if (name === 'sync' || name === 'floor-a-bounded')
    process.env['DUCKDB_JE_MALLOC_CONF'] ??= DUCKDB_ALLOCATOR_CONF;
  const task = await loadTask(name);
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

main().catch((error: unknown) => {
  process.stderr.write(
    `bench task failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});

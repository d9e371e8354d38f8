/**
 * `npm run bench`: measures the sync against its floors and at scale, and prints the figures, their
 * ratios and the targets; the figures also go to bench/out/bench-<time>.json. Progress lines go to
 * stderr, each with the machine's load average, the report to stdout. Exit 0 even when a target is
 * missed: the report says which.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { TsyncError } from '../src/errors.js';
import { BENCH_HELP, parseBenchArgs } from './args.js';
import { runTasksInProcess } from './child-output.js';
import { runBench } from './phases.js';
import { renderReport } from './report.js';
import { runSimulatorsInProcess } from './sim-process.js';

async function main(argv: readonly string[]): Promise<number> {
  const options = parseBenchArgs(argv);
  if (!options) {
    process.stdout.write(BENCH_HELP);
    return 0;
  }
  if (options.inProcess) {
    runTasksInProcess();
    runSimulatorsInProcess();
  }
  const started = Date.now();
  const loadAtStart = loadavg();
  const say = (line: string) =>
    process.stderr.write(
      `[bench ${((Date.now() - started) / 1_000).toFixed(0)}s, load ${loadavg()[0]?.toFixed(1)}] ${line}\n`,
    );
  const figures = await runBench(options, say);
  const machine = {
    nproc: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    load: { start: loadAtStart, end: loadavg() },
  };
  figures.machine = machine;
  mkdirSync(options.outDir, { recursive: true });
  const file = join(options.outDir, `bench-${new Date().toISOString().replaceAll(':', '-')}.json`);
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  process.stdout.write(renderReport(figures));
  const load = (values: number[]) => values.map((v) => v.toFixed(1)).join(' ');
  process.stdout.write(
    `\nmachine: ${machine.nproc} cores (${machine.cpu}), node ${machine.node}; ` +
      `load average (1, 5, 15 min) ${load(machine.load.start)} at the start, ${load(machine.load.end)} at the end\n`,
  );
  process.stdout.write(`figures written to ${file}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof TsyncError) {
      process.stderr.write(`bench: ${error.toLine()}\n`);
      process.exitCode = error.exitCode;
      return;
    }
    process.stderr.write(
      `bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);

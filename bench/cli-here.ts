/**
 * One command of the CLI run in the bench's own process (the smoke test's `--smoke`): the program's
 * main with captured streams and the given environment, as bin/transcript-sync composes it. Its
 * figures are the bench process's (peak RSS since it started; CPU and bytes written during the
 * command), so they show the command ran and reported, not what it costs.
 */
import { PassThrough } from 'node:stream';
import { JOBS } from '../jobs/index.js';
import { main } from '../src/cli/program.js';
import type { CliRun } from './cli-run.js';
import { writeBytes } from './tasks.js';

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString() };
}

/** Runs `args` with exactly `env`, stdin empty; the same result as runCli, probe included. */
export async function runCliHere(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<CliRun> {
  const stdout = capture();
  const stderr = capture();
  const started = performance.now();
  const before = process.resourceUsage();
  const written = writeBytes();
  const code = await main(args, {
    stdout: stdout.stream,
    stderr: stderr.stream,
    env,
    jobs: async () => JOBS,
  });
  const usage = process.resourceUsage();
  return {
    code,
    signal: null,
    wallMs: performance.now() - started,
    stdout: stdout.text(),
    stderrTail: stderr.text().slice(-8_192),
    probe: {
      // resourceUsage reports maxRSS in KiB and CPU times in µs.
      peakRssBytes: usage.maxRSS * 1024,
      peakHeapBytes: process.memoryUsage().heapTotal,
      cpuMs: (usage.userCPUTime + usage.systemCPUTime - before.userCPUTime - before.systemCPUTime) / 1_000,
      writeBytes: writeBytes() - written,
    },
  };
}

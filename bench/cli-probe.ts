/**
 * Loaded into a measured CLI process with `node --import` (bench/cli-run.ts): when the process
 * exits, writes its own figures as one JSON line to file descriptor 3, a pipe the bench opened.
 * Everything the command did is done by then (its files closed and checkpointed), so write_bytes
 * and VmHWM are final. A process killed by a signal writes nothing.
 */
import { readFileSync, writeSync } from 'node:fs';

/** What the probe reports; sizes in bytes, times in ms. */
export interface ProbeFigures {
  /** VmHWM: the peak resident set. */
  readonly peakRssBytes: number;
  /** Peak of the V8 heap's total size, sampled every SAMPLE_MS. */
  readonly peakHeapBytes: number;
  /** User + system CPU time. */
  readonly cpuMs: number;
  /** Bytes the process caused to be written to storage. */
  readonly writeBytes: number;
}

/** The file descriptor the bench reads the figures from. */
export const PROBE_FD = 3;
const SAMPLE_MS = 50;

/** A field of a /proc file ("name: value unit"), as a number; undefined where /proc is missing. */
function procField(file: string, name: string): number | undefined {
  try {
    const match = new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(readFileSync(file, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

let peakHeapBytes = 0;
const sample = () => {
  peakHeapBytes = Math.max(peakHeapBytes, process.memoryUsage().heapTotal);
};
setInterval(sample, SAMPLE_MS).unref();

process.on('exit', () => {
  sample();
  const usage = process.resourceUsage();
  const figures: ProbeFigures = {
    // VmHWM is in kB (KiB); resourceUsage's maxRSS is the same peak where /proc is missing.
    peakRssBytes: (procField('/proc/self/status', 'VmHWM') ?? usage.maxRSS) * 1024,
    peakHeapBytes,
    cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1_000,
    // fsWrite counts 512-byte blocks: the same figure, rounded, where /proc is missing.
    writeBytes: procField('/proc/self/io', 'write_bytes') ?? usage.fsWrite * 512,
  };
  try {
    writeSync(PROBE_FD, `${JSON.stringify(figures)}\n`);
  } catch {
    // Run without the bench's pipe: nothing to report to.
  }
});

/**
 * The latency-bound backfill: every response waits `latencyMs`, the dataset is small, and the same
 * backfill runs with 1, 2 and 4 slices fetched in parallel. From the simulator's answer times the
 * phase also checks the caps: requests in flight never above the concurrency, the rate never above
 * the client's limit.
 */
import { join } from 'node:path';
import type { BenchOptions } from './args.js';
import { runTask } from './child-output.js';
import { datasets } from './datasets.js';
import type { LatencyFigures, LatencyRun } from './figures.js';
import type { Say } from './phase-kit.js';
import { SimProcess } from './sim-process.js';
import type { RequestMark } from './sim-service.js';
import type { SyncTaskOptions, SyncTaskResult } from './task-sync.js';

/** The client's limit during the phase, requests/s: well above the 80/s that 4 slices at 50 ms ask for, so
 * the limiter spaces requests (GCRA, 5 ms apart) without throttling them; the report checks it held. */
const RATE_LIMIT = 200;
const CONCURRENCY = [1, 2, 4] as const;

/**
 * Requests in flight at once. Each request is answered `latencyMs` (plus a little work) after it
 * arrived, so it was in flight over [at - latencyMs, at]; the most such intervals overlapping is
 * the peak (intervals that merely touch do not overlap).
 */
export function peakInFlight(marks: readonly RequestMark[], latencyMs: number): number {
  const edges: [number, number][] = [];
  for (const mark of marks) edges.push([mark.at - latencyMs, 1], [mark.at, -1]);
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let peak = 0;
  for (const [, step] of edges) {
    open += step;
    peak = Math.max(peak, open);
  }
  return peak;
}

/** Most answers within any window of `windowMs`. */
export function peakPerWindow(marks: readonly RequestMark[], windowMs: number): number {
  const times = marks.map((mark) => mark.at).sort((a, b) => a - b);
  let peak = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while (times[end]! - times[start]! >= windowMs) start++;
    peak = Math.max(peak, end - start + 1);
  }
  return peak;
}

export async function runLatencyPhase(options: BenchOptions, dir: string, say: Say): Promise<LatencyFigures> {
  const { latency } = datasets(options.scale, new Date(), options.smoke);
  const sim = await SimProcess.start(latency.sim);
  try {
    await sim.setLatency(options.latencyMs);
    const runs: LatencyRun[] = [];
    for (const concurrency of CONCURRENCY) {
      const task: SyncTaskOptions = {
        baseUrl: sim.url,
        apiKey: sim.apiKey,
        db: join(dir, `latency-${concurrency}.duckdb`),
        pageSize: latency.pageSize,
        rateLimit: RATE_LIMIT,
        concurrency,
        sliceJobs: latency.sliceJobs,
      };
      const mark = await sim.requestCount();
      const run = await runTask<SyncTaskResult>('sync', task, options.cpuProf ? options.outDir : undefined);
      const marks = await sim.requestsSince(mark);
      runs.push({
        concurrency,
        wallMs: run.result.wallMs,
        requests: marks.length,
        // A little under the latency, so that back-to-back requests of one walker do not count twice.
        peakInFlight: peakInFlight(marks, options.latencyMs * 0.9),
        peakPerSecond: peakPerWindow(marks, 1_000),
      });
      say(
        `latency-bound backfill, ${concurrency} slice(s) at once: ${(run.result.wallMs / 1_000).toFixed(2)} s`,
      );
    }
    const jobs = latency.sim.preRecorded + latency.sim.live;
    return {
      latencyMs: options.latencyMs,
      jobs,
      slicesPerKind: Math.ceil(latency.sim.preRecorded / latency.sliceJobs),
      pageSize: latency.pageSize,
      rateLimit: RATE_LIMIT,
      runs,
    };
  } finally {
    await sim.close();
  }
}

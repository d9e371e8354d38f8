/**
 * The bench's simulator and the commands the bench drives it with: set the latency, count and list
 * the requests answered, write the served records as NDJSON, add, complete and delete jobs, read its
 * own CPU and memory. Served over IPC by the simulator's child process (sim-child.ts), or called in
 * the bench's own process with --in-process (sim-process.ts). Records are built per request, so a
 * million-job account starts in seconds and holds a few bytes a job.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import {
  type GrowOptions,
  type JobRecord,
  type SimulatorData,
  startSimulator,
} from '../src/simulator/index.js';
import type { Handlers } from './ipc.js';
import { countRecord, emptyCounts, type RowCounts } from './record-counts.js';

export interface SimChildOptions {
  readonly preRecorded: number;
  readonly live: number;
  readonly utterancesPerJob: number;
  readonly wordsPerUtterance: number;
  readonly seed: number;
  /** created_at range the jobs are spread over, ISO 8601 (their dates then depend on the count). */
  readonly from?: string;
  readonly to?: string;
  /**
   * Instead of from/to: the history starts at `start` (ISO 8601) with `jobsPerDay` jobs a day, so
   * the first N jobs are the same whatever the count (prefix-stable).
   */
  readonly timeline?: { readonly start: string; readonly jobsPerDay: number };
  /** A live account: jobs arrive, settle and are deleted as time passes. */
  readonly grow?: GrowOptions;
  /** Most items served per page. */
  readonly limitCap: number;
  /** Most bytes of served JSON the simulator keeps for the next requests (default: the simulator's). */
  readonly cacheBytes?: number;
}

/** The resources of the simulator's process, from process.cpuUsage and process.resourceUsage. */
export interface SimUsage {
  /** CPU time since the child started, µs. */
  readonly userMicros: number;
  readonly systemMicros: number;
  /** Resident set now and at its peak, bytes. */
  readonly rssBytes: number;
  readonly maxRssBytes: number;
}

/** One request as the simulator answered it: its path and when (ms, performance.now of its process). */
export interface RequestMark {
  readonly path: string;
  readonly status: number;
  readonly at: number;
}

export interface DatasetFile extends RowCounts {
  readonly bytes: number;
}

export interface SimService {
  readonly url: string;
  readonly apiKey: string;
  /** The bench's commands, by name (bench/sim-process.ts calls them). */
  readonly handlers: Handlers;
  close(): Promise<void>;
}

/** Starts the simulator `options` describe on 127.0.0.1. */
export async function startSimService(options: SimChildOptions): Promise<SimService> {
  const requests: RequestMark[] = [];
  const sim = await startSimulator({
    preRecorded: options.preRecorded,
    live: options.live,
    utterancesPerJob: options.utterancesPerJob,
    wordsPerUtterance: options.wordsPerUtterance,
    seed: options.seed,
    ...(options.from === undefined ? {} : { from: new Date(options.from) }),
    ...(options.to === undefined ? {} : { to: new Date(options.to) }),
    ...(options.timeline
      ? { timeline: { start: new Date(options.timeline.start), jobsPerDay: options.timeline.jobsPerDay } }
      : {}),
    ...(options.grow ? { grow: options.grow } : {}),
    limitCap: options.limitCap,
    ...(options.cacheBytes === undefined ? {} : { cacheBytes: options.cacheBytes }),
    keepLog: false,
    // Stamped when the answer is sent, i.e. after the added latency.
    onRequest: (entry) => requests.push({ path: entry.path, status: entry.status, at: performance.now() }),
  });
  return {
    url: sim.url,
    apiKey: sim.apiKey,
    close: () => sim.close(),
    handlers: {
      latency: ({ ms }: { ms: number }) => sim.setLatency(ms),
      /** Requests answered since the `from`-th one; `count()` then `since(count)` brackets a phase. */
      count: () => requests.length,
      since: ({ from }: { from: number }) => requests.slice(from),
      /** The served records, newest first, one JSON text a line, exactly the bytes the server sends. */
      ndjson: ({ path }: { path: string }): DatasetFile => writeNdjson(sim.data, path),
      /**
       * Serves every page of the listing once, so that what the cache holds (cacheBytes) is served
       * from memory afterwards; returns the pages served.
       */
      warm: async (): Promise<number> => {
        let pages = 0;
        let next: string | null = `${sim.url}/v2/transcription?limit=${options.limitCap}&offset=0`;
        while (next !== null) {
          const response: Response = await fetch(next, { headers: { 'x-service-key': sim.apiKey } });
          if (!response.ok) throw new Error(`warming the simulator: HTTP ${response.status}`);
          next = ((await response.json()) as { next: string | null }).next;
          pages += 1;
        }
        return pages;
      },
      /** Bytes of JSON of the served records (what a whole walk receives, envelopes aside). */
      jsonBytes: () => {
        let bytes = 0;
        for (const record of listed(sim.data)) bytes += Buffer.byteLength(JSON.stringify(record));
        return bytes;
      },
      /** The CPU and memory of the simulator's process (with --in-process: the bench's). */
      usage: (): SimUsage => {
        const cpu = process.cpuUsage();
        return {
          userMicros: cpu.user,
          systemMicros: cpu.system,
          rssBytes: process.memoryUsage.rss(),
          // resourceUsage gives kB.
          maxRssBytes: process.resourceUsage().maxRSS * 1024,
        };
      },
      /** Adds `count` jobs of `kind` created `agoMs` before now, in `status`; returns their ids. */
      add: ({ count, status, agoMs }: { count: number; status: 'queued' | 'done'; agoMs: number }) => {
        // One instant for the batch: pending re-checks then cost one request per kind, not per job.
        const createdAt = new Date(Date.now() - agoMs);
        return Array.from({ length: count }, (_, i) => {
          const kind = i % 2 === 0 ? 'pre-recorded' : 'live';
          const record = sim.data.add({ kind, status: 'queued', createdAt });
          const id = String(record['id']);
          if (status === 'done') sim.data.advance(id, 'done');
          return id;
        });
      },
      /** Moves the given jobs to done (a queued job completing upstream). */
      complete: ({ ids }: { ids: string[] }) => {
        for (const id of ids) sim.data.advance(id, 'done');
      },
      /** Deletes the `count` oldest jobs (upstream deletions far outside any recent window). */
      deleteOldest: ({ count }: { count: number }) => {
        const listedJobs = sim.data.count();
        const oldest = sim.data.slice(Math.max(0, listedJobs - count), listedJobs);
        for (const record of oldest) sim.data.delete(String(record['id']));
        return oldest.length;
      },
    },
  };
}

/** Listed records, newest first, built a slice at a time (a big account is never held whole). */
function* listed(data: SimulatorData): Generator<JobRecord> {
  const total = data.count();
  for (let start = 0; start < total; start += LIST_SLICE) yield* data.slice(start, start + LIST_SLICE);
}

const LIST_SLICE = 500;

function writeNdjson(data: SimulatorData, path: string): DatasetFile {
  const counts = emptyCounts();
  let bytes = 0;
  const fd = openSync(path, 'w');
  try {
    for (const record of listed(data)) {
      countRecord(record, counts);
      const line = `${JSON.stringify(record)}\n`;
      bytes += writeSync(fd, line);
    }
  } finally {
    closeSync(fd);
  }
  return { ...counts, bytes };
}

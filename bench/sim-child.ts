/**
 * The simulator in its own process (forked by bench/sim-process.ts), so that its CPU and memory
 * never count against the sync being measured. Generates the dataset from the options in argv[2]
 * (JSON), serves it on 127.0.0.1, and answers the bench's commands over IPC.
 */
import { writeFileSync } from 'node:fs';
import { startSimulator } from '../src/simulator/index.js';
import { serveParent } from './ipc.js';
import { countRecord, emptyCounts, type RowCounts } from './record-counts.js';

export interface SimChildOptions {
  readonly preRecorded: number;
  readonly live: number;
  readonly utterancesPerJob: number;
  readonly wordsPerUtterance: number;
  readonly seed: number;
  /** created_at range, ISO 8601. */
  readonly from: string;
  readonly to: string;
  /** Most items served per page. */
  readonly limitCap: number;
}

/** One request as the simulator answered it: its path and when (ms, performance.now of the child). */
export interface RequestMark {
  readonly path: string;
  readonly status: number;
  readonly at: number;
}

export interface DatasetFile extends RowCounts {
  readonly bytes: number;
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as SimChildOptions;
  const requests: RequestMark[] = [];
  const sim = await startSimulator({
    preRecorded: options.preRecorded,
    live: options.live,
    utterancesPerJob: options.utterancesPerJob,
    wordsPerUtterance: options.wordsPerUtterance,
    seed: options.seed,
    from: new Date(options.from),
    to: new Date(options.to),
    limitCap: options.limitCap,
    keepLog: false,
    // Stamped when the answer is sent, i.e. after the added latency.
    onRequest: (entry) => requests.push({ path: entry.path, status: entry.status, at: performance.now() }),
  });
  serveParent({
    latency: ({ ms }: { ms: number }) => sim.setLatency(ms),
    /** Requests answered since the `from`-th one; `count()` then `since(count)` brackets a phase. */
    count: () => requests.length,
    since: ({ from }: { from: number }) => requests.slice(from),
    /** The served records, newest first, one JSON text a line, exactly the bytes the server sends. */
    ndjson: ({ path }: { path: string }): DatasetFile => writeNdjson(sim.data.all(), path),
    /** Bytes of JSON of the served records (what a whole walk receives, envelopes aside). */
    jsonBytes: () => sim.data.all().reduce((n, record) => n + Buffer.byteLength(JSON.stringify(record)), 0),
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
      const oldest = sim.data.all().slice(-count);
      for (const record of oldest) sim.data.delete(String(record['id']));
      return oldest.length;
    },
    close: async () => {
      await sim.close();
      setImmediate(() => process.exit(0));
    },
  });
  process.send?.({ ready: true, url: sim.url, apiKey: sim.apiKey });
}

function writeNdjson(records: readonly Record<string, unknown>[], path: string): DatasetFile {
  const counts = emptyCounts();
  const lines: string[] = [];
  for (const record of records) {
    countRecord(record, counts);
    lines.push(JSON.stringify(record));
  }
  const text = `${lines.join('\n')}\n`;
  writeFileSync(path, text);
  return { ...counts, bytes: Buffer.byteLength(text) };
}

// The parent going away (a killed bench) must not leave a server behind.
process.on('disconnect', () => process.exit(0));
main().catch((error: unknown) => {
  process.stderr.write(
    `simulator child: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});

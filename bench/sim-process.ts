/**
 * The bench's handle on a simulator: start it, steer it, and read which requests it answered during
 * a phase. A child process of its own (bench/sim-child.ts), or with --in-process
 * (runSimulatorsInProcess) the bench's own process, the smoke test's mode.
 */
import { fork } from 'node:child_process';
import { ChildChannel } from './ipc.js';
import {
  type DatasetFile,
  type RequestMark,
  type SimChildOptions,
  type SimUsage,
  startSimService,
} from './sim-service.js';

const CHILD = new URL('./sim-child.js', import.meta.url);

/** Indexing a million jobs takes seconds; a loaded shared machine may take minutes. ms. */
const START_TIMEOUT_MS = 600_000;

/** How the handle reaches its simulator: a command and its answer, and the end. */
interface SimLink {
  call<T>(command: string, args?: unknown): Promise<T>;
  close(): Promise<void>;
}

let inProcess = false;

/**
 * From now on, start each simulator in this process (a child costs a node start and the
 * simulator's imports): its CPU and memory then count as the bench's.
 */
export function runSimulatorsInProcess(): void {
  inProcess = true;
}

export class SimProcess {
  private constructor(
    private readonly link: SimLink,
    readonly url: string,
    readonly apiKey: string,
  ) {}

  static async start(options: SimChildOptions): Promise<SimProcess> {
    if (inProcess) {
      const service = await startSimService(options);
      const link: SimLink = {
        async call<T>(command: string, args: unknown = null): Promise<T> {
          const handler = service.handlers[command];
          if (!handler) throw new Error(`unknown command ${command}`);
          return (await handler(args as never)) as T;
        },
        close: () => service.close(),
      };
      return new SimProcess(link, service.url, service.apiKey);
    }
    const child = fork(CHILD, [JSON.stringify(options)], {
      serialization: 'json',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const channel = new ChildChannel(child);
    const ready = await new Promise<{ url: string; apiKey: string }>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('the simulator child did not start in time')),
        START_TIMEOUT_MS,
      );
      child.on('message', (message: { ready?: boolean; url?: string; apiKey?: string }) => {
        if (!message.ready) return;
        clearTimeout(timer);
        resolve({ url: String(message.url), apiKey: String(message.apiKey) });
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the simulator child exited (${code}) before it was ready`));
      });
    });
    const link: SimLink = {
      call: (command, args) => channel.call(command, args),
      async close() {
        if (child.exitCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        await channel.call('close').catch(() => child.kill('SIGKILL'));
        await exited;
      },
    };
    return new SimProcess(link, ready.url, ready.apiKey);
  }

  setLatency(ms: number): Promise<void> {
    return this.link.call('latency', { ms });
  }

  /** How many requests were answered so far: a mark to pass to `requestsSince`. */
  requestCount(): Promise<number> {
    return this.link.call('count');
  }

  requestsSince(from: number): Promise<RequestMark[]> {
    return this.link.call('since', { from });
  }

  writeNdjson(path: string): Promise<DatasetFile> {
    return this.link.call('ndjson', { path });
  }

  /** Serves the whole listing once, so that the cache holds what fits of it (SimChildOptions.cacheBytes); the pages served. */
  warm(): Promise<number> {
    return this.link.call('warm');
  }

  jsonBytes(): Promise<number> {
    return this.link.call('jsonBytes');
  }

  /** The child's CPU time so far and its resident memory: read before and after a phase. */
  usage(): Promise<SimUsage> {
    return this.link.call('usage');
  }

  /** Adds jobs created `agoMs` ago upstream; returns their ids. */
  addJobs(count: number, status: 'queued' | 'done', agoMs: number): Promise<string[]> {
    return this.link.call('add', { count, status, agoMs });
  }

  completeJobs(ids: readonly string[]): Promise<void> {
    return this.link.call('complete', { ids });
  }

  deleteOldest(count: number): Promise<number> {
    return this.link.call('deleteOldest', { count });
  }

  close(): Promise<void> {
    return this.link.close();
  }
}

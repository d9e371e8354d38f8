/**
 * The parent's handle on a simulator child (bench/sim-child.ts): start it, steer it, and read
 * which requests it answered during a phase.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { ChildChannel } from './ipc.js';
import type { DatasetFile, RequestMark, SimChildOptions, SimUsage } from './sim-child.js';

const CHILD = new URL('./sim-child.js', import.meta.url);

/** Indexing a million jobs takes seconds; a loaded shared machine may take minutes. ms. */
const START_TIMEOUT_MS = 600_000;

export class SimProcess {
  private constructor(
    private readonly child: ChildProcess,
    private readonly channel: ChildChannel,
    readonly url: string,
    readonly apiKey: string,
  ) {}

  static async start(options: SimChildOptions): Promise<SimProcess> {
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
    return new SimProcess(child, channel, ready.url, ready.apiKey);
  }

  setLatency(ms: number): Promise<void> {
    return this.channel.call('latency', { ms });
  }

  /** How many requests were answered so far: a mark to pass to `requestsSince`. */
  requestCount(): Promise<number> {
    return this.channel.call('count');
  }

  requestsSince(from: number): Promise<RequestMark[]> {
    return this.channel.call('since', { from });
  }

  writeNdjson(path: string): Promise<DatasetFile> {
    return this.channel.call('ndjson', { path });
  }

  jsonBytes(): Promise<number> {
    return this.channel.call('jsonBytes');
  }

  /** The child's CPU time so far and its resident memory: read before and after a phase. */
  usage(): Promise<SimUsage> {
    return this.channel.call('usage');
  }

  /** Adds jobs created `agoMs` ago upstream; returns their ids. */
  addJobs(count: number, status: 'queued' | 'done', agoMs: number): Promise<string[]> {
    return this.channel.call('add', { count, status, agoMs });
  }

  completeJobs(ids: readonly string[]): Promise<void> {
    return this.channel.call('complete', { ids });
  }

  deleteOldest(count: number): Promise<number> {
    return this.channel.call('deleteOldest', { count });
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    await this.channel.call('close').catch(() => this.child.kill('SIGKILL'));
    await exited;
  }
}

/**
 * The decode thread: big pages are read (decoded, parsed, their envelope checked, their records
 * validated, hashed and mapped to rows) on a thread of their own, so that the main thread, which
 * drives the appender and the walk, never holds a page's parsed objects. A backfill's main thread
 * was busy the whole run, half of it on this work (BENCHMARKS.md, issue 15). The rows come back
 * by structured clone, the staged words' columns by transfer.
 *
 * One thread per run, started on the first big page: the fetchers' pages queue at it and are
 * read one at a time, so it holds one page's objects at most. It runs the compiled file next to this
 * one; run from TypeScript sources (the unit tests) there is none, and pages are read inline.
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { BodyProblem } from '../api/list-body.js';
import { DecodeThreadError } from '../errors.js';
import { rowBatchFromWire } from '../normalize/row-batch.js';
import type { DecodeReply, DecodeRequest } from './decode-worker.js';
import type { PageRows } from './page-rows.js';

const WORKER_FILE = new URL('./decode-worker.js', import.meta.url);

/**
 * The thread's young generation, MiB. V8's default let it grow to 32 MiB of new space, most of the
 * thread's heap: a page's objects die young. At 8 MiB a backfill's peak RSS fell ~40 MiB for the
 * same time (BENCHMARKS.md, issue 15). Old space has no cap: a record asked alone may be huge.
 */
const YOUNG_GENERATION_MB = 8;

/** False when running from TypeScript sources: no compiled thread file to start. */
export const DECODE_THREAD_AVAILABLE = existsSync(WORKER_FILE);

export type DecodeResult =
  | { readonly ok: true; readonly value: PageRows; readonly next: string | null }
  | BodyProblem;

interface Waiting {
  readonly resolve: (result: DecodeResult) => void;
  readonly reject: (error: unknown) => void;
}

export class DecodeThread {
  #worker: Worker | undefined;
  #nextId = 0;
  readonly #waiting = new Map<number, Waiting>();

  /** `heapBytes`: the thread's V8 heap mark (its HeapGuard), from the memory plan. */
  constructor(private readonly heapBytes: number) {}

  /** Reads `body` in the thread; `body`'s memory moves there (it is unusable here afterwards). */
  decode(body: Uint8Array, skip: number, signal: AbortSignal | undefined): Promise<DecodeResult> {
    signal?.throwIfAborted();
    const worker = this.#started();
    const id = this.#nextId++;
    // A body that shares its buffer (a view into a bigger one) is copied, so only it moves.
    const own =
      body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? body : new Uint8Array(body);
    const request: DecodeRequest = { id, body: own, skip };
    return new Promise<DecodeResult>((resolve, reject) => {
      const onAbort = () => {
        this.#settle(id);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      this.#waiting.set(id, {
        resolve: (result) => {
          done();
          resolve(result);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      worker.ref();
      worker.postMessage(request, [own.buffer as ArrayBuffer]);
    });
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#failAll(new DecodeThreadError('the decode thread was closed while it read a page'));
    await worker?.terminate();
  }

  #started(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(WORKER_FILE, {
      workerData: { heapBytes: this.heapBytes },
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    worker.on('message', (reply: DecodeReply) => this.#onReply(reply));
    const stopped = (why: string) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      this.#failAll(
        new DecodeThreadError(`the decode thread stopped while it read a page (${why})`, {
          hint: 'what was committed is kept and the next run tries again; if pages are huge, lower --page-bytes',
        }),
      );
    };
    worker.on('error', (error) => stopped(error.message));
    worker.on('exit', (code) => stopped(`exit code ${code}`));
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  #onReply(reply: DecodeReply): void {
    const waiting = this.#settle(reply.id);
    if (!waiting) return; // aborted meanwhile
    if ('failure' in reply) {
      waiting.reject(new DecodeThreadError(`the decode thread failed to read a page: ${reply.failure}`));
      return;
    }
    const { result } = reply;
    if (!result.ok) waiting.resolve(result);
    else
      waiting.resolve({ ...result, value: { ...result.value, batch: rowBatchFromWire(result.value.batch) } });
  }

  /** Takes `id` off the waiting list; the thread no longer keeps the process alive when none waits. */
  #settle(id: number): Waiting | undefined {
    const waiting = this.#waiting.get(id);
    this.#waiting.delete(id);
    if (this.#waiting.size === 0) this.#worker?.unref();
    return waiting;
  }

  #failAll(error: DecodeThreadError): void {
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const { reject } of waiting) reject(error);
  }
}

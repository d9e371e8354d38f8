/**
 * The listing service as the engine's ListingSource: the src/api client fetches each page, and its
 * body is read into rows (page-rows.ts) inline when small, in the run's decode thread when big
 * (decode-thread.ts). Reading inline costs the thread's start (~50 ms, the thread then loads zod and
 * the normalizer) on none of the small pages an incremental run mostly fetches.
 */
import type { ListingClient, ListName, ListParams } from '../api/index.js';
import { DECODE_THREAD_AVAILABLE, type DecodeResult, DecodeThread } from './decode-thread.js';
import type { ListingSource, SourcePage, SourceRequest } from './listing-source.js';
import { decodePage } from './page-rows.js';

/** Bodies of this many bytes and more are read in the decode thread when the budget has room for it (SyncPlan.threadBytes). */
export const DEFAULT_THREAD_BYTES = 256 * 1024;

export interface ListingServiceOptions {
  /** Smallest body read in the decode thread, bytes; Infinity: none. */
  readonly threadBytes: number;
  /** The decode thread's V8 heap mark, bytes (memory-budget.ts). */
  readonly threadHeapBytes: number;
}

export class ListingService implements ListingSource {
  readonly #client: ListingClient;
  readonly #threadBytes: number;
  readonly #thread: DecodeThread;

  /** The client stays this service's: close() closes it. */
  constructor(client: ListingClient, options: ListingServiceOptions) {
    this.#client = client;
    this.#threadBytes = DECODE_THREAD_AVAILABLE ? options.threadBytes : Number.POSITIVE_INFINITY;
    this.#thread = new DecodeThread(options.threadHeapBytes);
  }

  get stats() {
    return this.#client.stats;
  }

  async getPage(list: ListName, params: ListParams, request: SourceRequest): Promise<SourcePage> {
    const skip = request.skip ?? 0;
    const decode = async (body: Uint8Array, signal: AbortSignal | undefined): Promise<DecodeResult> =>
      body.byteLength >= this.#threadBytes ? this.#thread.decode(body, skip, signal) : decodePage(body, skip);
    const { value, ...page } = await this.#client.getPageWith(list, params, request, decode);
    return { ...page, ...value };
  }

  async close(): Promise<void> {
    await this.#thread.close();
    await this.#client.close();
  }
}

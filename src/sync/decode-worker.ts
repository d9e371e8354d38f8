/**
 * The decode thread's entry (decode-thread.ts starts it): reads each page sent to it into rows and
 * sends them back, the staged words' columns transferred. Holds nothing between pages.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { BodyProblem } from '../api/list-body.js';
import { type RowBatchWire, rowBatchToWire } from '../normalize/row-batch.js';
import { HeapGuard } from './heap-guard.js';
import { decodePage, type PageRows } from './page-rows.js';

export interface DecodeRequest {
  readonly id: number;
  readonly body: Uint8Array;
  /** Items not normalized (SourceRequest.skip). */
  readonly skip: number;
}

export type DecodeReply =
  | {
      readonly id: number;
      readonly result:
        | {
            readonly ok: true;
            readonly value: Omit<PageRows, 'batch'> & { readonly batch: RowBatchWire };
            readonly next: string | null;
          }
        | BodyProblem;
    }
  /** Something threw while reading (a bug, not a broken body): the page's request fails. */
  | { readonly id: number; readonly failure: string };

const port = parentPort;
if (port) {
  // The V8 heap of this thread is kept near its mark as the main thread's is (heap-guard.ts).
  const heap = new HeapGuard((workerData as { heapBytes: number }).heapBytes);
  port.on('message', ({ id, body, skip }: DecodeRequest) => {
    try {
      const result = decodePage(body, skip);
      if (!result.ok) {
        port.postMessage({ id, result } satisfies DecodeReply);
      } else {
        const { wire, transfer } = rowBatchToWire(result.value.batch);
        const reply: DecodeReply = { id, result: { ...result, value: { ...result.value, batch: wire } } };
        port.postMessage(reply, transfer);
      }
    } catch (error) {
      port.postMessage({
        id,
        failure: error instanceof Error ? error.message : String(error),
      } satisfies DecodeReply);
    }
    heap.check();
  });
}

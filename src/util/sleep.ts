import { setTimeout } from 'node:timers/promises';

/**
 * An abortable wait. Rejects with the signal's own reason (not node's generic AbortError) so that
 * a caller aborting with, say, an InterruptedError gets that error back from anywhere in the client.
 */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  await setTimeout(ms, undefined, { signal }).catch(() => signal?.throwIfAborted());
}

/** Jobs created and moved as a growing account's clock runs (growth.ts), for whoever watches them (webhooks.ts). */
import type { JobKind, JobStatus } from './types.js';

/** A job created (born `queued`) or moved to `status`. */
export interface JobChange {
  readonly id: string;
  readonly kind: JobKind;
  readonly status: JobStatus;
}

export class JobChanges {
  private readonly listeners = new Set<(change: JobChange) => void>();

  /** Calls `listener` with each change from now on, as it is applied; returns the unsubscribe. */
  watch(listener: (change: JobChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(change: JobChange): void {
    for (const listener of this.listeners) listener(change);
  }
}

/**
 * The database file as the worker's runs find it: free, or held by another writer (a `sync` from
 * the command line, `compact`, `state reset`, ...). A run that still finds it held after
 * --lock-wait is put back in the queue for PUT_BACK_MS, without spending an attempt, never failed
 * and never a reason for the worker to stop. One run per job (its name and payload) waits put back:
 * another of the same job found busy meanwhile ends at once (the one put back does its work), and
 * the one put back ends at once when a run of the same job has taken the file since. The processor
 * ends only a scheduler's runs so; a run queued by `enqueue` is put back until it runs.
 */

/** ms a run that found the file busy waits in the queue before it asks again. */
export const PUT_BACK_MS = 30_000;

/** What a run found busy does next. */
export type BusyVerdict = 'put back' | 'skipped';

export interface BusyState {
  /** ms since the epoch: the first time a run found the file held since a run last took it. */
  readonly since: number;
  /** The last refusal: who holds the file. */
  readonly holder: string;
}

interface PutBack {
  readonly jobId: string;
  /** ms since the epoch */
  readonly at: number;
}

export class BusyFile {
  private busy: BusyState | undefined;
  /** By job key: the run waiting put back. */
  private readonly putBack = new Map<string, PutBack>();
  /** By job key: ms since the epoch when a run of that job last took the file. */
  private readonly tookAt = new Map<string, number>();

  /** A run of `key` (job `jobId`) took the file: it is free again. */
  taken(key: string, jobId: string, now = Date.now()): void {
    this.busy = undefined;
    this.tookAt.set(key, now);
    if (this.putBack.get(key)?.jobId === jobId) this.putBack.delete(key);
  }

  /** A run of `key` (job `jobId`) found the file held by `holder` past --lock-wait. */
  found(key: string, jobId: string, holder: string, now = Date.now()): BusyVerdict {
    this.busy = { since: this.busy?.since ?? now, holder };
    const waiting = this.putBack.get(key);
    if (waiting !== undefined && waiting.jobId !== jobId) return 'skipped';
    this.putBack.set(key, { jobId, at: now });
    return 'put back';
  }

  /** Whether job `jobId` was put back and a run of the same job has taken the file since. */
  doneSince(key: string, jobId: string): boolean {
    const waiting = this.putBack.get(key);
    if (waiting?.jobId !== jobId) return false;
    const took = this.tookAt.get(key);
    if (took === undefined || took < waiting.at) return false;
    this.putBack.delete(key);
    return true;
  }

  /** Since when, and by whom, the file has been busy; undefined while runs take it. */
  state(): BusyState | undefined {
    return this.busy;
  }
}

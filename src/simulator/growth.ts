/**
 * A growing account's clock: as time passes, new jobs arrive (born queued, on the arrivals'
 * timeline), pending jobs move to processing and settle as done or error, and a small share of
 * jobs is deleted (at each arrival, with probability `deleteShare`, one older job drawn from the
 * seed). Events are applied in time order whenever the simulator is asked anything, so the account
 * at a given instant depends only on the seed and that instant, not on how often it was asked.
 */
import { EventEmitter } from 'node:events';
import type { Account, Lifecycle } from './account.js';
import { GROW_DEFAULTS } from './defaults.js';
import { classOf, copied, GONE, type JobIndex, kindOfClass } from './job-index.js';
import { unit } from './rng.js';
import { type GrowOptions, JOB_STATUSES, type JobKind, type JobStatus } from './types.js';

const LANE_DELETE = 8;

/** The lifecycle of `grow`: arrivals from job `jobs` on, never before the history's last job. */
export function lifecycleOf(history: Account, jobs: number, grow: GrowOptions, nowMs: number): Lifecycle {
  if (!(grow.jobsPerMinute > 0))
    throw new RangeError(`grow.jobsPerMinute must be above 0 (got ${grow.jobsPerMinute})`);
  const deleteShare = grow.deleteShare ?? GROW_DEFAULTS.deleteShare;
  if (!(deleteShare >= 0 && deleteShare <= 1))
    throw new RangeError(`grow.deleteShare must be within 0..1 (got ${deleteShare})`);
  const lastMs = jobs > 0 ? history.createdMs(jobs - 1) : Number.NEGATIVE_INFINITY;
  const startMs = Math.max(grow.startMs ?? nowMs, lastMs + 1);
  return {
    arrivals: { firstIndex: jobs, startMs, gapMs: 60_000 / grow.jobsPerMinute },
    settleMs: grow.settleMs ?? GROW_DEFAULTS.settleMs,
    deleteShare,
  };
}

/** A job created (born `queued`) or moved to `status`, for whoever watches them (webhooks.ts). */
export interface JobChange {
  readonly id: string;
  readonly kind: JobKind;
  readonly status: JobStatus;
}

/** The changes of a growing account, as they are applied: a `change` event each. */
export class JobChanges extends EventEmitter<{ change: [JobChange] }> {}

export class Growth {
  private readonly events = new EventHeap();
  /** The next job to arrive: the first of the arrivals' segment, then one more each time. */
  private next: number;

  constructor(
    private readonly account: Account,
    private readonly life: Lifecycle,
    private readonly index: JobIndex,
    private readonly changes: JobChanges | undefined,
  ) {
    this.next = life.arrivals.firstIndex;
  }

  /** Schedules the moves of a job that is pending when the account starts growing. */
  adopt(i: number, born: JobStatus): void {
    const settlement = this.account.settlement(i, born);
    if (!settlement) return;
    const final = this.account.head(i).final;
    if (born === 'queued') this.events.push(settlement.processingAt, i, 'processing');
    this.events.push(settlement.settledAt, i, final);
  }

  /** Applies every arrival, move and deletion due at or before `nowMs`. */
  advanceTo(nowMs: number): void {
    for (;;) {
      const arrivalAt = this.account.createdMs(this.next);
      const eventAt = this.events.peekTime();
      if (Math.min(arrivalAt, eventAt) > nowMs) return;
      if (arrivalAt <= eventAt) this.arrive(this.next++);
      else this.move(this.events.pop());
    }
  }

  private arrive(i: number): void {
    if (i !== this.index.length) throw new Error(`simulator: job ${i} arrived out of turn`);
    this.index.push(classOf(this.account.kindOf(i), 'queued'), this.account.head(i).metadataCode);
    this.adopt(i, 'queued');
    this.changed(i, 'queued');
    if (i > 0 && unit(this.account.seed, i, LANE_DELETE) < this.life.deleteShare) {
      this.index.setClass(Math.floor(unit(this.account.seed, i, LANE_DELETE + 64) * i), GONE);
    }
  }

  private move(event: { job: number; status: JobStatus }): void {
    const cls = this.index.classAt(event.job);
    // Deleted, or taken over by the overlay (its record changes only through the data API).
    if (cls === GONE) return;
    this.index.setClass(event.job, classOf(kindOfClass(cls), event.status));
    this.changed(event.job, event.status);
  }

  private changed(i: number, status: JobStatus): void {
    this.changes?.emit('change', { id: this.account.idOf(i), kind: this.account.kindOf(i), status });
  }
}

/** A binary min-heap of (time, job, status) in typed arrays, ties by job. */
class EventHeap {
  private times = new Float64Array(64);
  private jobs = new Uint32Array(64);
  private statuses = new Uint8Array(64);
  private size = 0;

  peekTime(): number {
    return this.size === 0 ? Number.POSITIVE_INFINITY : this.times[0]!;
  }

  push(time: number, job: number, status: JobStatus): void {
    if (this.size === this.times.length) this.grow();
    let at = this.size++;
    this.times[at] = time;
    this.jobs[at] = job;
    this.statuses[at] = JOB_STATUSES.indexOf(status);
    for (let parent = (at - 1) >> 1; at > 0 && this.earlier(at, parent); parent = (at - 1) >> 1) {
      this.swap(at, parent);
      at = parent;
    }
  }

  pop(): { job: number; status: JobStatus } {
    const top = { job: this.jobs[0]!, status: JOB_STATUSES[this.statuses[0]!]! };
    this.swap(0, --this.size);
    for (let at = 0, child = 1; child < this.size; at = child, child = 2 * at + 1) {
      if (child + 1 < this.size && this.earlier(child + 1, child)) child += 1;
      if (!this.earlier(child, at)) break;
      this.swap(child, at);
    }
    return top;
  }

  private earlier(a: number, b: number): boolean {
    const [ta, tb] = [this.times[a]!, this.times[b]!];
    return ta < tb || (ta === tb && this.jobs[a]! < this.jobs[b]!);
  }

  private swap(a: number, b: number): void {
    [this.times[a], this.times[b]] = [this.times[b]!, this.times[a]!];
    [this.jobs[a], this.jobs[b]] = [this.jobs[b]!, this.jobs[a]!];
    [this.statuses[a], this.statuses[b]] = [this.statuses[b]!, this.statuses[a]!];
  }

  private grow(): void {
    const size = this.times.length * 2;
    this.times = copied(new Float64Array(size), this.times);
    this.jobs = copied(new Uint32Array(size), this.jobs);
    this.statuses = copied(new Uint8Array(size), this.statuses);
  }
}

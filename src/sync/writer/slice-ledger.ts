/**
 * The writer's account of a window's slices (no I/O). Slices are oldest first and complete in any
 * order; the watermark is the end of the oldest-first prefix of complete slices (every job created
 * before it was loaded), and never moves back, not even below the run's starting one. A slice is
 * marked complete in the transaction that loads its last page and the watermark read there is saved
 * with that transaction, so it never runs ahead of committed rows; a failure saves `committed`.
 */
import type { Slice } from '../../extract/index.js';
import type { Checkpoint } from '../types.js';
import type { Claims } from './writer.js';

export class SliceLedger {
  readonly #slices: readonly Slice[];
  readonly #complete = new Set<number>();
  /** Slices [0, prefix) are complete. */
  #prefix = 0;
  #committed: string | null;

  /** `watermark`: the run's starting one (null on a first run). */
  constructor(slices: readonly Slice[], watermark: string | null) {
    this.#slices = slices;
    this.#committed = watermark;
  }

  /** Every page of slice `index` was loaded (in the open transaction or an earlier one). */
  complete(index: number): void {
    if (!Number.isInteger(index) || index < 0 || index >= this.#slices.length) {
      throw new RangeError(`no slice ${index} in a window of ${this.#slices.length}`);
    }
    this.#complete.add(index);
    while (this.#complete.has(this.#prefix)) this.#prefix += 1;
  }

  /** The watermark the open transaction may save: the end of the complete prefix, never earlier. */
  get watermark(): string | null {
    const end = this.#slices[this.#prefix - 1];
    return end ? laterOf(this.#committed, end.before.toISOString()) : this.#committed;
  }

  /** The oldest slice not complete yet; null once all are. */
  get inProgress(): Checkpoint['slice'] {
    const slice = this.#slices[this.#prefix];
    return slice ? { after: slice.after?.toISOString() ?? null, before: slice.before.toISOString() } : null;
  }

  /** The open transaction committed `watermark` (what `watermark` returned inside it). */
  commit(watermark: string | null): void {
    this.#committed = watermark;
  }

  /** The watermark of the last commit: what a failed or stopped run saves. */
  get committed(): string | null {
    return this.#committed;
  }
}

/** The later of two ISO 8601 instants; `b` when `a` is null. */
function laterOf(a: string | null, b: string): string {
  return a !== null && Date.parse(a) > Date.parse(b) ? a : b;
}

/**
 * What a window's commits claim: the run's starting checkpoint with the ledger's watermark and the
 * slice in progress.
 */
export function windowClaims(ledger: SliceLedger, start: Checkpoint): Claims {
  return {
    complete: (index) => ledger.complete(index),
    listed: () => {},
    checkpoint: () => ({ ...start, watermark: ledger.watermark, slice: ledger.inProgress }),
    committed: (cp) => ledger.commit(cp.watermark),
  };
}

/**
 * What the simulator keeps per generated job: two bytes. `cls` is the job's class (kind and
 * status, or GONE once deleted or taken over by the overlay), `meta` its custom_metadata code. Per
 * block of 256 jobs it also counts each class, so rank and select are a binary search over blocks
 * plus a scan of one block, not a pass over the list.
 */
import { JOB_KINDS, JOB_STATUSES, type JobKind, type JobStatus } from './types.js';

/** Class of a listed job: kind * 4 + status (0..7). */
export type JobClass = number;
export const GONE = 8;
const CLASSES = 8;
const BLOCK_SHIFT = 8;
const BLOCK = 1 << BLOCK_SHIFT;

export function classOf(kind: JobKind, status: JobStatus): JobClass {
  return JOB_KINDS.indexOf(kind) * 4 + JOB_STATUSES.indexOf(status);
}

export function statusOfClass(cls: JobClass): JobStatus {
  return JOB_STATUSES[cls & 3]!;
}

export function kindOfClass(cls: JobClass): JobKind {
  return JOB_KINDS[cls >> 2]!;
}

/** Bit c set: class c matches. */
export type ClassMask = number;

export function maskOf(kinds: readonly JobKind[] | null, statuses: readonly JobStatus[] | null): ClassMask {
  let mask = 0;
  for (let cls = 0; cls < CLASSES; cls++) {
    if (kinds && !kinds.includes(kindOfClass(cls))) continue;
    if (statuses && !statuses.includes(statusOfClass(cls))) continue;
    mask |= 1 << cls;
  }
  return mask;
}

export class JobIndex {
  private cls = new Uint8Array(0);
  private meta = new Uint8Array(0);
  /** Jobs of each class per block: counts[block * CLASSES + cls]. */
  private counts = new Uint16Array(0);
  /** Jobs of each class in the blocks before block b: prefix[b * CLASSES + cls]; rows 0..validRows hold. */
  private prefix = new Uint32Array(0);
  private validRows = 0;
  private size = 0;

  constructor(capacity: number) {
    this.resize(Math.max(BLOCK, capacity));
  }

  /** Jobs indexed, GONE ones included. */
  get length(): number {
    return this.size;
  }

  push(cls: JobClass, metadataCode: number): void {
    if (this.size === this.cls.length) this.resize(this.size * 2);
    const i = this.size++;
    this.cls[i] = cls;
    this.meta[i] = metadataCode;
    if (cls !== GONE) this.counts[(i >> BLOCK_SHIFT) * CLASSES + cls]! += 1;
    this.invalidate(i);
  }

  classAt(i: number): JobClass {
    return this.cls[i]!;
  }

  metadataAt(i: number): number {
    return this.meta[i]!;
  }

  setClass(i: number, cls: JobClass): void {
    const old = this.cls[i]!;
    if (old === cls) return;
    const block = (i >> BLOCK_SHIFT) * CLASSES;
    if (old !== GONE) this.counts[block + old]! -= 1;
    if (cls !== GONE) this.counts[block + cls]! += 1;
    this.cls[i] = cls;
    this.invalidate(i);
  }

  /** Jobs of `mask` in [0, x). */
  rank(mask: ClassMask, x: number): number {
    const block = x >> BLOCK_SHIFT;
    this.validate(block);
    let n = this.prefixOf(mask, block);
    for (let i = block << BLOCK_SHIFT; i < x; i++) if ((mask >> this.cls[i]!) & 1) n++;
    return n;
  }

  /** The index of the k-th job (0-based, oldest first) of `mask`; k must be below rank(mask, length). */
  select(mask: ClassMask, k: number): number {
    const blocks = blocksFor(this.size);
    this.validate(blocks - 1);
    let lo = 0;
    let hi = blocks - 1;
    // The last block whose prefix is <= k holds it.
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.prefixOf(mask, mid) <= k) lo = mid;
      else hi = mid - 1;
    }
    let left = k - this.prefixOf(mask, lo);
    for (let i = lo << BLOCK_SHIFT; i < this.size; i++) {
      if ((mask >> this.cls[i]!) & 1) {
        if (left === 0) return i;
        left -= 1;
      }
    }
    throw new RangeError(`JobIndex.select: no job ${k} of mask ${mask}`);
  }

  private prefixOf(mask: ClassMask, block: number): number {
    let n = 0;
    const row = block * CLASSES;
    for (let cls = 0; cls < CLASSES; cls++) if ((mask >> cls) & 1) n += this.prefix[row + cls]!;
    return n;
  }

  /** A change in job i's block leaves the rows up to that block true. */
  private invalidate(i: number): void {
    this.validRows = Math.min(this.validRows, i >> BLOCK_SHIFT);
  }

  /** Makes prefix rows up to and including `row` true. */
  private validate(row: number): void {
    for (let r = this.validRows; r < row; r++) {
      const at = r * CLASSES;
      for (let cls = 0; cls < CLASSES; cls++) {
        this.prefix[at + CLASSES + cls] = this.prefix[at + cls]! + this.counts[at + cls]!;
      }
    }
    this.validRows = Math.max(this.validRows, row);
  }

  /** Room for `jobs` jobs, the indexed ones kept. */
  private resize(jobs: number): void {
    this.cls = copied(new Uint8Array(jobs), this.cls);
    this.meta = copied(new Uint8Array(jobs), this.meta);
    this.counts = copied(new Uint16Array(blocksFor(jobs) * CLASSES), this.counts);
    this.prefix = copied(new Uint32Array((blocksFor(jobs) + 1) * CLASSES), this.prefix);
  }
}

function blocksFor(jobs: number): number {
  return Math.max(1, Math.ceil(jobs / BLOCK));
}

/** `into` (a larger array) with `from` copied to its start. */
export function copied<T extends Uint8Array | Uint16Array | Uint32Array | Float64Array>(into: T, from: T): T {
  into.set(from);
  return into;
}

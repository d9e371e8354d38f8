/**
 * Which job ids the file may hold: a Bloom filter of the ids in `jobs`. classify.sql reads only the
 * stored jobs of a batch's created_at window; the loader looks a record missed there up in the whole
 * table only when `mayHold` says its id may be stored (false: certainly not; true: maybe). Filled by
 * one scan of jobs.id, then told of every id the loader adds; once `full`, the loader fills a new one.
 */
import { type Database, eachStoredId, storedJobCount } from '../store/index.js';

/** Bits an id is given; the probes are the optimum for it (16 x ln 2). */
const BITS_PER_ID = 16;
const PROBES = 11;
/** Ids a new filter is sized for at least, and how many times the ids it is filled with. */
const MIN_IDS = 65_536;
const GROWTH = 2;

export class StoredIds {
  private readonly bits: Uint32Array;
  private readonly mask: number;
  private held = 0;

  private constructor(private readonly capacity: number) {
    // A power of two of bits, so that a probe is a mask.
    const bits = 2 ** Math.ceil(Math.log2(capacity * BITS_PER_ID));
    this.bits = new Uint32Array(bits / 32);
    this.mask = bits - 1;
  }

  /** The ids of `jobs` as `db` sees them (its open transaction's rows included), and `staged`. */
  static async read(db: Database, staged: Iterable<string>): Promise<StoredIds> {
    const ids = new StoredIds(Math.max(MIN_IDS, GROWTH * (await storedJobCount(db))));
    await eachStoredId(db, (id) => ids.add(id));
    for (const id of staged) ids.add(id);
    return ids;
  }

  /** More ids than it was sized for: its false positives grow; fill a new one. */
  get full(): boolean {
    return this.held > this.capacity;
  }

  add(id: string): void {
    const [a, b] = hashes(id);
    for (let i = 0; i < PROBES; i++) {
      const bit = (a + Math.imul(i, b)) & this.mask;
      this.bits[bit >>> 5] = (this.bits[bit >>> 5] as number) | (1 << (bit & 31));
    }
    this.held += 1;
  }

  mayHold(id: string): boolean {
    const [a, b] = hashes(id);
    for (let i = 0; i < PROBES; i++) {
      const bit = (a + Math.imul(i, b)) & this.mask;
      if (((this.bits[bit >>> 5] as number) & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

/** Two 32-bit hashes of `id` (FNV-1a and a multiply-shift variant); the second odd, so probes cycle. */
function hashes(id: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  return [a >>> 0, (b | 1) >>> 0];
}

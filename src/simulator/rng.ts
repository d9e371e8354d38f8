/**
 * A small seeded pseudo-random generator (sfc32, 128 bits of state): fast enough for millions of
 * words and identical across platforms, so a seed always yields the same dataset. A generator is
 * named by (seed, stream, lane): the simulator gives each job its own streams, so any job can be
 * drawn alone, in any order, and two jobs never share a sequence.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d = 1;

  constructor(seed: number, stream = 0, lane = 0) {
    this.a = hash32(seed, stream, lane);
    this.b = hash32(seed, stream, lane ^ 0x51ed27);
    this.c = hash32(seed, stream, lane ^ 0x2a9c1b);
    // sfc32's own warm-up: the first outputs of nearby states are still correlated.
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A float in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) + t;
    this.c |= 0;
    return (t >>> 0) / 4_294_967_296;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** A float in [min, max). */
  float(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('Rng.pick: empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Picks by weight: `[[value, weight], ...]`. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    const total = entries.reduce((sum, [, w]) => sum + w, 0);
    let draw = this.next() * total;
    for (const [value, weight] of entries) {
      draw -= weight;
      if (draw < 0) return value;
    }
    const last = entries.at(-1);
    if (!last) throw new RangeError('Rng.weighted: empty list');
    return last[0];
  }

  /** A few distinct items of `items`, in their original order. */
  some<T>(items: readonly T[], min: number, max: number): T[] {
    const count = Math.min(items.length, this.int(min, max));
    const chosen = new Set<number>();
    while (chosen.size < count) chosen.add(this.int(0, items.length - 1));
    return [...chosen].sort((a, b) => a - b).map((i) => items[i] as T);
  }

  /** `mean` varied by +-50% (uniform), at least 1. */
  around(mean: number): number {
    return Math.max(1, Math.round(mean * (0.5 + this.next())));
  }

  hex(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += HEX[this.int(0, 15)];
    return out;
  }

  /** A version-4-shaped UUID. */
  uuid(): string {
    const variant = HEX[8 + this.int(0, 3)];
    return `${this.hex(8)}-${this.hex(4)}-4${this.hex(3)}-${variant}${this.hex(3)}-${this.hex(12)}`;
  }
}

const HEX = '0123456789abcdef';

/** Rounds to `digits` decimals (timings are given in ms, durations in µs like the real service). */
export function round(value: number, digits = 3): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** murmur3's mixing of one 32-bit word into a running hash. */
function mix(h: number, k: number): number {
  let x = Math.imul(k | 0, 0xcc9e2d51);
  x = (x << 15) | (x >>> 17);
  let y = h ^ Math.imul(x, 0x1b873593);
  y = (y << 13) | (y >>> 19);
  return (Math.imul(y, 5) + 0xe6546b64) | 0;
}

/**
 * A stateless 32-bit hash of three integers (murmur3's mix and finalizer): the draws that must be
 * made for any job without building a generator (its created_at, tie and id), unsigned.
 */
export function hash32(a: number, b: number, c: number): number {
  let h = mix(mix(mix(0x5eed1e55, a), b), c) ^ 12;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** hash32 as a float in [0, 1). */
export function unit(a: number, b: number, c: number): number {
  return hash32(a, b, c) / 4_294_967_296;
}

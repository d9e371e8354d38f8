/**
 * A small seeded pseudo-random generator (mulberry32): fast enough for millions of words and
 * identical across platforms, so a seed always yields the same dataset.
 */
export class Rng {
  private state: number;

  constructor(seed: number) {
    // Mix the seed so that nearby seeds (7, 8) start far apart.
    this.state = (Math.imul(seed | 0, 0x9e3779b1) ^ 0x85ebca6b) >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
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

  /** `mean` varied by +-50% (uniform), at least `min`. */
  around(mean: number, min = 1): number {
    return Math.max(min, Math.round(mean * (0.5 + this.next())));
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

  /** An independent generator seeded from this one. */
  fork(): Rng {
    return new Rng(this.int(0, 2 ** 31 - 1));
  }
}

const HEX = '0123456789abcdef';

/** Rounds to `digits` decimals (timings are given in ms, durations in µs like the real service). */
export function round(value: number, digits = 3): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

import { hash } from 'node:crypto';

/** A seeded pseudo-random source; the simulator's only source of variety, so runs repeat exactly. */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform in [min, max). */
  range(min: number, max: number): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

/** mulberry32: tiny, fast and good enough for text choices and scores. */
export function mulberry32(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return {
    next,
    range: (min, max) => min + next() * (max - min),
    int,
    pick: <T>(items: readonly T[]): T => {
      const item = items[int(items.length)];
      if (item === undefined) throw new Error('pick from an empty list');
      return item;
    },
    chance: (p) => next() < p,
  };
}

/**
 * A 32-bit seed from any parts; separate parts so `("ab","c")` and `("a","bc")` differ. One
 * `hash()` of the joined parts: the same digest as a Hash object fed part by part, without
 * making one per seed (a simulated job draws dozens of seeds).
 */
export function seedOf(...parts: ReadonlyArray<string | number>): number {
  let text = '';
  for (const p of parts) text += `${String(p)}\u0000`;
  return hash('sha256', text, 'buffer').readUInt32LE(0);
}

/** An independent stream per purpose, so adding text in one place never shifts another. */
export function rngFor(...parts: ReadonlyArray<string | number>): Rng {
  return mulberry32(seedOf(...parts));
}

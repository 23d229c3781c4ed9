import { describe, expect, it } from 'vitest';
import { rngFor, seedOf } from '../../src/sim/rng.js';

describe("the simulator's seeds", () => {
  it('are the first four bytes of the SHA-256 of the parts, each ended by a NUL, so a council repeats across versions', () => {
    // Values from the part-by-part Hash the seeds were first drawn with.
    expect(seedOf('k', 'propose', 1, 'CortexA')).toBe(4186360913);
    expect(seedOf()).toBe(1120186595);
  });

  it('tell apart parts that join to the same text', () => {
    expect(seedOf('ab', 'c')).not.toBe(seedOf('a', 'bc'));
    expect(seedOf('ab', 'c')).toBe(338664546);
  });

  it('give the same stream for the same parts', () => {
    const a = rngFor('q', 'quality', 'CortexB');
    const b = rngFor('q', 'quality', 'CortexB');
    expect([a.next(), a.next(), a.next()]).toEqual([b.next(), b.next(), b.next()]);
  });
});

import { describe, expect, it } from 'vitest';
import { randomHex } from '../../src/session/random-hex.js';

describe('randomHex', () => {
  it('gives the bytes asked for as hex, across refills of its pool and beyond its size', () => {
    const seen = new Set<string>();
    // 200 ids of 6 bytes cross the 256-byte pool several times.
    for (let i = 0; i < 200; i++) {
      const id = randomHex(6);
      expect(id).toMatch(/^[0-9a-f]{12}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(200);
    expect(randomHex(300)).toMatch(/^[0-9a-f]{600}$/);
    expect(randomHex(4)).toMatch(/^[0-9a-f]{8}$/);
  });

  it('never hands out the same bytes twice in a row', () => {
    const a = randomHex(16);
    const b = randomHex(16);
    expect(a).not.toBe(b);
  });
});

// When a batch's heap tuning sets its flags (src/cli/engine-profile.ts): once the young
// generation has reached the profile's size, never before, and whatever else the heap reports.
import { describe, expect, it } from 'vitest';
import { ENGINE_PROFILES, heapFlagsDue, type HeapSpace } from '../../src/cli/engine-profile.js';

const MiB = 1024 * 1024;
const tuning = ENGINE_PROFILES['many-turns'];
const heap = (youngMiB: number, oldMiB = 40): HeapSpace[] => [
  { space_name: 'read_only_space', space_size: 0 },
  { space_name: 'new_space', space_size: youngMiB * MiB },
  { space_name: 'old_space', space_size: oldMiB * MiB },
];

describe('the heap tuning of many turns', () => {
  it('sets nothing while the young generation is smaller than the size it stops at', () => {
    expect(tuning.youngGenerationBytes).toBe(8 * MiB);
    expect(heapFlagsDue(tuning, heap(2))).toEqual([]);
    expect(heapFlagsDue(tuning, heap(4, 200))).toEqual([]);
    expect(heapFlagsDue(tuning, [{ space_name: 'new_space', space_size: 8 * MiB - 1 }])).toEqual([]);
  });

  it('stops its growth and slows the old generation once it has reached it, or grown past it', () => {
    const flags = ['--semi-space-growth-factor=1', '--heap-growing-percent=30'];
    expect(heapFlagsDue(tuning, heap(8))).toEqual(flags);
    expect(heapFlagsDue(tuning, heap(32, 0))).toEqual(flags);
  });

  it('sets nothing on a heap that reports no young generation by that name', () => {
    expect(heapFlagsDue(tuning, [{ space_name: 'old_space', space_size: 64 * MiB }])).toEqual([]);
    expect(heapFlagsDue(tuning, [])).toEqual([]);
  });
});

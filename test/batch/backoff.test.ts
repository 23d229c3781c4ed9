// The batch's shared back-off on its own, with a clock the test moves (docs/reliability.md #150).
import { describe, expect, it } from 'vitest';
import { SharedBackoff } from '../../src/batch/backoff.js';
import type { Clock } from '../../src/run/context.js';
import { NsedError } from '../../src/errors.js';

/** Time moves only when something sleeps: each sleep is recorded and moves it on by its length. */
function movingClock(): Clock & { sleeps: number[]; at: number } {
  const c = {
    at: 1_000_000,
    sleeps: [] as number[],
    now: () => new Date(c.at),
    sleep: (ms: number) => {
      c.sleeps.push(ms);
      c.at += ms;
      return Promise.resolve();
    },
  };
  return c;
}

const signal = new AbortController().signal;

describe('SharedBackoff (reliability #150)', () => {
  it('lets starts through at once until a refusal holds it; then each start waits what is left', async () => {
    const clock = movingClock();
    const gate = new SharedBackoff(clock);
    await gate.pass(signal);
    expect(clock.sleeps).toEqual([]);
    gate.hold(7_000);
    expect(gate.leftMs()).toBe(7_000);
    clock.at += 2_000;
    await gate.pass(signal);
    expect(clock.sleeps).toEqual([5_000]);
    expect(gate.leftMs()).toBe(0);
    await gate.pass(signal);
    expect(clock.sleeps).toEqual([5_000]);
  });
  it('a shorter wait asked while a longer one holds changes nothing', async () => {
    const clock = movingClock();
    const gate = new SharedBackoff(clock);
    gate.hold(10_000);
    gate.hold(3_000);
    expect(gate.leftMs()).toBe(10_000);
    await gate.pass(signal);
    expect(clock.sleeps).toEqual([10_000]);
  });
  it('past the cap in all, no start goes: pass fails with a server error that started nothing', async () => {
    const clock = movingClock();
    const gate = new SharedBackoff(clock, 60_000);
    for (let i = 0; i < 6; i++) {
      gate.hold(10_000);
      await gate.pass(signal);
    }
    expect(clock.sleeps).toEqual([10_000, 10_000, 10_000, 10_000, 10_000, 10_000]);
    gate.hold(10_000);
    const err = await gate.pass(signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NsedError);
    expect((err as NsedError).code).toBe('server');
    expect((err as NsedError).nothingStarted).toBe(true);
    expect(clock.sleeps).toHaveLength(6);
  });
  it('an abort while waiting ends the wait with the signal', async () => {
    const controller = new AbortController();
    const clock: Clock = {
      now: () => new Date(0),
      sleep: (_ms, s) => new Promise((_, reject) => s?.addEventListener('abort', () => reject(new Error('aborted')))),
    };
    const gate = new SharedBackoff(clock);
    gate.hold(5_000);
    const waiting = gate.pass(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toThrow('aborted');
  });
});

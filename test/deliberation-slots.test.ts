// The places among a batch's deliberations (src/run/deliberation-slots.ts, docs/reliability.md #273).
import { describe, expect, it } from 'vitest';
import { DeliberationSlots } from '../src/run/deliberation-slots.js';

const never = new AbortController().signal;

/** Whether `p` has settled once the microtasks queued so far have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return done;
}

describe('DeliberationSlots', () => {
  it('grants at most N places; a given-back place goes to the next lease in the order they were taken', async () => {
    const slots = new DeliberationSlots(2);
    const [a, b, c, d] = [slots.lease(), slots.lease(), slots.lease(), slots.lease()];
    // d asks before c: the place still goes to c first, whose lease was taken first.
    const dWaits = d.acquire(never);
    const cWaits = c.acquire(never);
    expect(await a.acquire(never)).toBe(true);
    expect(await b.acquire(never)).toBe(true);
    expect(slots.held).toBe(2);
    expect(await settled(cWaits)).toBe(false);
    a.release();
    expect(await cWaits).toBe(true);
    expect(await settled(dWaits)).toBe(false);
    b.release();
    expect(await dWaits).toBe(true);
    expect([a.started, b.started, c.started, d.started]).toEqual([true, true, true, true]);
    c.release();
    d.release();
    expect(slots.held).toBe(0);
  });

  it('a lease given back before it was used passes its turn (or the place it was granted) on', async () => {
    const slots = new DeliberationSlots(1);
    const [a, b, c] = [slots.lease(), slots.lease(), slots.lease()];
    // a was granted the one place at once and never used it; b is still in line.
    a.release();
    b.release();
    expect(await c.acquire(never)).toBe(true);
    expect([a.started, b.started]).toEqual([false, false]);
    expect(slots.held).toBe(1);
  });

  it('a signal ends the wait with false, and a place granted after it is passed on, not taken', async () => {
    const slots = new DeliberationSlots(1);
    const stop = new AbortController();
    const [a, b, c] = [slots.lease(), slots.lease(), slots.lease()];
    expect(await a.acquire(never)).toBe(true);
    const bWaits = b.acquire(stop.signal);
    stop.abort();
    expect(await bWaits).toBe(false);
    expect(b.started).toBe(false);
    const cWaits = c.acquire(never);
    a.release();
    expect(await cWaits).toBe(true);
    // Aborted before it asked: nothing is granted, nothing held.
    const late = slots.lease();
    expect(await late.acquire(stop.signal)).toBe(false);
    c.release();
    expect(slots.held).toBe(0);
  });

  it('a lease that gave its place back queues again for a second deliberation (a corrective turn)', async () => {
    const slots = new DeliberationSlots(1);
    // onStart: when the item first holds a place, which its time is counted from; once.
    const starts: string[] = [];
    const [a, b] = [slots.lease(() => starts.push('a')), slots.lease(() => starts.push('b'))];
    expect(await a.acquire(never)).toBe(true);
    // Held already: at once.
    expect(await a.acquire(never)).toBe(true);
    const bWaits = b.acquire(never);
    a.release();
    expect(await bWaits).toBe(true);
    const again = a.acquire(never);
    expect(await settled(again)).toBe(false);
    b.release();
    expect(await again).toBe(true);
    expect(starts).toEqual(['a', 'b']);
    a.release();
    // Given back twice is given back once.
    a.release();
    expect(slots.held).toBe(0);
  });
});

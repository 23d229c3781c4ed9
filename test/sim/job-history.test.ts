import { describe, expect, it } from 'vitest';
import type { Job } from '../../src/sim/job.js';
import { JobRegistry } from '../../src/sim/jobs.js';

const TTL = 60_000;

/** What the registry reads of a job: its id, its status and when it finishes. */
function fakeJob(id: string): { job: Job; finish: () => Promise<void> } {
  let resolve: () => void = () => undefined;
  const finished = new Promise<void>((r) => {
    resolve = r;
  });
  const job = { id, status: 'running', finished } as unknown as Job;
  return {
    job,
    finish: async () => {
      (job as { status: string }).status = 'completed';
      resolve();
      await finished;
      // The registry stamps the finish in its own continuation of `finished`.
      await Promise.resolve();
    },
  };
}

/** A registry on a clock the test moves, counting how often the registry reads it. */
function rig() {
  const clock = { now: 0, reads: 0 };
  const registry = new JobRegistry(() => {
    clock.reads += 1;
    return clock.now;
  }, TTL);
  return { clock, registry };
}

describe('the simulator keeps finished jobs for the history TTL', () => {
  it('forgets finished jobs once the TTL has passed, in the order they finished, and keeps running ones', async () => {
    const { clock, registry } = rig();
    const a = fakeJob('room-a');
    const b = fakeJob('room-b');
    const running = fakeJob('room-c');
    for (const j of [a, b, running]) registry.add(j.job);
    await a.finish();
    clock.now = 10_000;
    await b.finish();
    clock.now = TTL;
    expect(registry.list().map((j) => j.id)).toEqual(['room-b', 'room-c']);
    expect(registry.get('room-a')).toBeUndefined();
    clock.now = TTL + 10_000;
    registry.add(fakeJob('room-d').job);
    expect(registry.list().map((j) => j.id)).toEqual(['room-c', 'room-d']);
    expect(registry.get('room-c')).toBe(running.job);
  });

  it('keeps a job that replaced a finished one in its room when the one it replaced expires', async () => {
    const { clock, registry } = rig();
    const first = fakeJob('oc-thread-1');
    registry.add(first.job);
    await first.finish();
    const second = fakeJob('oc-thread-1');
    registry.add(second.job);
    clock.now = TTL * 2;
    registry.add(fakeJob('room-x').job);
    expect(registry.get('oc-thread-1')).toBe(second.job);
  });

  it('adds a job without looking at every job in the history', async () => {
    const { clock, registry } = rig();
    const history = Array.from({ length: 5_000 }, (_, i) => fakeJob(`room-${i}`));
    for (const j of history) registry.add(j.job);
    await Promise.all(history.map((j) => j.finish()));
    clock.reads = 0;
    for (let i = 0; i < 100; i++) registry.add(fakeJob(`room-new-${i}`).job);
    // One look at the oldest finished job per add, not one per job kept.
    expect(clock.reads).toBeLessThanOrEqual(100);
    expect(registry.list()).toHaveLength(5_100);
  });

  it('judges expiry by the clock even when it was moved back', async () => {
    const { clock, registry } = rig();
    clock.now = 50_000;
    const late = fakeJob('room-late');
    registry.add(late.job);
    await late.finish();
    clock.now = 0;
    const early = fakeJob('room-early');
    registry.add(early.job);
    await early.finish();
    clock.now = TTL;
    expect(registry.list().map((j) => j.id)).toEqual(['room-late']);
    expect(registry.get('room-early')).toBeUndefined();
  });
});

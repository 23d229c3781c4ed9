// The group commit's one rule (docs/reliability.md #260): a caller's promise settles only after a
// sync that began after it asked; callers that ask before a sync begins share it. Driven by
// hand-released syncs, no clock.
import { describe, expect, it } from 'vitest';
import { SyncGroup } from '../../src/files/sync-group.js';

/** A sync function whose runs the test ends one by one. */
function heldSyncs() {
  const runs: Array<{ end: (err?: Error) => void }> = [];
  const run = (): Promise<void> =>
    new Promise<void>((resolve, reject) => runs.push({ end: (err) => (err ? reject(err) : resolve()) }));
  return { runs, run };
}
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('SyncGroup (reliability #260)', () => {
  it('serves every caller that asked before a sync began with that one sync', async () => {
    const { runs, run } = heldSyncs();
    const group = new SyncGroup(run);
    const done: string[] = [];
    const a = group.sync().then(() => done.push('a'));
    const b = group.sync().then(() => done.push('b'));
    await tick();
    expect(runs).toHaveLength(1);
    runs[0]?.end();
    await Promise.all([a, b]);
    expect(done.sort()).toEqual(['a', 'b']);
    expect(runs).toHaveLength(1);
  });

  it('makes a caller that asks while a sync runs wait for the next one, shared by all who asked meanwhile', async () => {
    const { runs, run } = heldSyncs();
    const group = new SyncGroup(run);
    const done: string[] = [];
    const first = group.sync().then(() => done.push('first'));
    await tick();
    expect(runs).toHaveLength(1);
    // Asked after the first sync began: it may not cover these writes.
    const late1 = group.sync().then(() => done.push('late1'));
    const late2 = group.sync().then(() => done.push('late2'));
    await tick();
    expect(runs).toHaveLength(1);
    runs[0]?.end();
    await first;
    await tick();
    expect(done).toEqual(['first']);
    expect(runs).toHaveLength(2);
    runs[1]?.end();
    await Promise.all([late1, late2]);
    expect(done.sort()).toEqual(['first', 'late1', 'late2']);
    expect(runs).toHaveLength(2);
  });

  it("gives a failed sync's error to each of its callers, and the next caller a sync of its own", async () => {
    const { runs, run } = heldSyncs();
    const group = new SyncGroup(run);
    const a = group.sync();
    const b = group.sync();
    await tick();
    runs[0]?.end(Object.assign(new Error('EIO'), { code: 'EIO' }));
    await expect(a).rejects.toThrow('EIO');
    await expect(b).rejects.toThrow('EIO');
    const c = group.sync();
    await tick();
    expect(runs).toHaveLength(2);
    runs[1]?.end();
    await expect(c).resolves.toBeUndefined();
  });
});

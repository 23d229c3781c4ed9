// kill -9 in the middle of a batch, then `nsed batch --resume` (docs/reliability.md #148): a
// process test, since only a real process can be killed so. Every id ends up exactly once in the
// results file, and no item finished or running when the batch died is sent a second time.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useRig } from '../harness/rig.js';
import { until } from '../harness/sse.js';

const rig = useRig({ hold: true });
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-batch-kill-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// The ids of the lines written whole. The file is read while the batch appends to it, so the
// text after the last newline can be a line still being written.
const ids = (text: string): string[] =>
  text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => String((JSON.parse(l) as { id: string }).id));
const starts = (): number =>
  rig.sim.requests.filter((q) => q.method === 'POST' && q.path.startsWith('/v1/chat/completions')).length;

describe('kill -9 mid-batch, then --resume (reliability #148)', () => {
  it('follows the deliberations left running, runs only the items never started, pays for none twice', async () => {
    const items = join(dir, 'six.jsonl');
    await writeFile(items, ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => `{"id":"${id}","prompt":"q ${id}"}`).join('\n'));
    const out = join(dir, 'results.jsonl');
    const child = rig.spawn(['batch', items, '-j', '3', '--out', out]);
    const [j1, j2, j3] = [
      await rig.sim.control.nextJob(),
      await rig.sim.control.nextJob(),
      await rig.sim.control.nextJob(),
    ];
    // Two finish (their lines are written); the two items started in their place are held.
    rig.sim.control.release(j1 ?? '');
    rig.sim.control.release(j2 ?? '');
    await until(async () => ids(await readFile(out, 'utf8').catch(() => '')).length === 2);
    const [j4, j5] = [await rig.sim.control.nextJob(), await rig.sim.control.nextJob()];
    // Each running item has recorded its job, so the kill leaves pending markers behind; the last
    // item, f, waits for a place with its session claimed (the simulator lists its deliberations,
    // docs/reliability.md #273).
    const count = async (state: string[]): Promise<number> => {
      const { stdout } = await rig.run(['sessions', 'ls', ...state, '--ids']);
      return stdout.trim().split('\n').filter(Boolean).length;
    };
    await until(async () => (await count(['--state', 'running'])) === 3 && (await count([])) === 6);
    child.kill('SIGKILL');
    const killed = await child.result;
    expect(killed.signal).toBe('SIGKILL');
    expect(starts()).toBe(5);
    const finished = ids(await readFile(out, 'utf8'));
    expect(finished).toHaveLength(2);

    // One of the three left running ends while nobody follows it; two are still running.
    rig.sim.control.release(j3 ?? '');
    await rig.sim.control.ended(j3 ?? '');
    const again = rig.start(['batch', items, '-j', '3', '--out', out, '--resume']);
    rig.sim.control.release(j4 ?? '');
    rig.sim.control.release(j5 ?? '');
    // The one item never started is the only new deliberation: found by its dead owner's claim,
    // listed nowhere on the orchestrator, so sent now, once (docs/reliability.md #201).
    rig.sim.control.release(await rig.sim.control.nextJob());
    const r = await again.result;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('2 done, 4 to follow, 0 to run');
    expect(starts()).toBe(6);
    const all = ids(await readFile(out, 'utf8'));
    expect(all.slice(0, 2)).toEqual(finished);
    expect([...all].sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    // The running ones were followed on the orchestrator (attached or their result read), not sent again.
    const followed = rig.sim.requests.filter(
      (q) =>
        /^\/deliberation\/[^/]+\/(resume|result)$/.test(q.path) && [j3, j4, j5].some((j) => q.path.includes(j ?? '?')),
    );
    expect(followed.length).toBeGreaterThanOrEqual(3);
    const lines = (await readFile(out, 'utf8'))
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { status: string; batch: string; job_id: string });
    expect(lines.every((l) => l.status === 'ok')).toBe(true);
    expect(new Set(lines.map((l) => l.batch)).size).toBe(1);
    expect(new Set(lines.map((l) => l.job_id)).size).toBe(6);
  });
});

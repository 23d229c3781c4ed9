// A batch's -j places (src/run/deliberation-slots.ts, docs/reliability.md #273): held from a
// deliberation's start to its end on the orchestrator, not to the item's line; an item claimed
// while it waits for its place only where the orchestrator lists its deliberations (docs/reliability.md #201), and
// tested against both answers (docs/protocol.md §14). The simulator holds every job until the
// test releases it: no clock is raced.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { proxiedRigs } from '../harness/holding-proxy.js';
import type { Seen } from '../harness/scripted-server.js';
import { resultLines } from '../harness/batch-rig.js';
import { until } from '../harness/sse.js';
import { testRig, type Rig } from '../harness/rig.js';

const proxied = proxiedRigs();

const isDetails = (seen: Seen): boolean => seen.method === 'GET' && /^\/deliberation\/[^/]+\/details$/.test(seen.url);
const isListing = (seen: Seen): boolean => seen.method === 'GET' && seen.url === '/deliberations';

const sessions = async (rig: Rig, state?: string): Promise<number> => {
  const { stdout } = await rig.run(['sessions', 'ls', '--ids', ...(state === undefined ? [] : ['--state', state])]);
  return stdout.trim().split('\n').filter(Boolean).length;
};

const threeItems = async (rig: Rig): Promise<string> => {
  const items = join(rig.home, 'three.txt');
  await writeFile(items, 'q one\nq two\nq three\n');
  return items;
};

describe('a place among the -j deliberations (reliability #273)', () => {
  it('is given back when the deliberation ends: the next one starts while the first item still reads its ballots', async () => {
    // Every /details answer is held by the proxy: an item whose deliberation ended cannot end itself.
    const { rig, proxy, env } = await proxied('hold-headers', { hold: true }, isDetails);
    const items = join(rig.home, 'two.txt');
    await writeFile(items, 'q one\nq two\n');
    const out = join(rig.home, 'results.jsonl');
    const run = rig.start(['batch', items, '-j', '1', '--out', out], { env });
    const first = await rig.sim.control.nextJob();
    rig.sim.control.release(first);
    // The second deliberation starts, at -j 1, while the first item's line cannot have been written.
    const second = await rig.sim.control.nextJob();
    expect(await readFile(out, 'utf8').catch(() => '')).toBe('');
    expect(rig.sim.control.stats()).toMatchObject({ running: 1, peak: 1 });
    rig.sim.control.release(second);
    let ended = false;
    const result = run.result.finally(() => (ended = true));
    await until(() => {
      proxy.release();
      return ended;
    });
    const r = await result;
    expect(r.code, r.stderr).toBe(0);
    const lines = resultLines(await readFile(out, 'utf8'));
    expect(lines.map((l) => l['status'])).toEqual(['ok', 'ok']);
    // The items started in the file's order.
    expect(Object.fromEntries(lines.map((l) => [l['id'], l['job_id']]))).toEqual({ 'line-1': first, 'line-2': second });
    expect(rig.sim.control.stats()).toMatchObject({ peak: 1, started: 2 });
  });

  it('where the orchestrator lists its deliberations, the next item is claimed while it waits, and starts in order', async () => {
    const rig = await testRig({ hold: true });
    const run = rig.start(['batch', await threeItems(rig), '-j', '1']);
    const first = await rig.sim.control.nextJob();
    // line-2's session and claim are written while line-1 deliberates; it has not started.
    await until(async () => (await sessions(rig)) === 2);
    expect(rig.sim.control.stats()).toMatchObject({ running: 1, started: 1 });
    rig.sim.control.release(first);
    const second = await rig.sim.control.nextJob();
    rig.sim.control.release(second);
    const third = await rig.sim.control.nextJob();
    rig.sim.control.release(third);
    const r = await run.result;
    expect(r.code, r.stderr).toBe(0);
    const jobs = Object.fromEntries(resultLines(r.stdout).map((l) => [l['id'], l['job_id']]));
    expect(jobs).toEqual({ 'line-1': first, 'line-2': second, 'line-3': third });
    expect(rig.sim.control.stats()).toMatchObject({ peak: 1, started: 3 });
  });

  it('where it lists none, an item is claimed only once it has its place: a kill -9 leaves none that --resume cannot send', async () => {
    const { rig, env } = await proxied('not-found', { hold: true }, isListing);
    const items = await threeItems(rig);
    const out = join(rig.home, 'results.jsonl');
    const child = rig.spawn(['batch', items, '-j', '1', '--out', out], { env });
    const first = await rig.sim.control.nextJob();
    // line-1's job is recorded; line-2's claim, made at once where the listing answers, is not made.
    await until(async () => (await sessions(rig, 'running')) === 1);
    expect(await sessions(rig)).toBe(1);
    child.kill('SIGKILL');
    expect((await child.result).signal).toBe('SIGKILL');
    rig.sim.control.release(first);
    await rig.sim.control.ended(first);
    const again = rig.start(['batch', items, '-j', '1', '--out', out, '--resume'], { env });
    rig.sim.control.release(await rig.sim.control.nextJob());
    rig.sim.control.release(await rig.sim.control.nextJob());
    const r = await again.result;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('0 done, 1 to follow, 2 to run');
    const lines = resultLines(await readFile(out, 'utf8'));
    expect(lines.map((l) => [l['id'], l['status']]).sort()).toEqual([
      ['line-1', 'ok'],
      ['line-2', 'ok'],
      ['line-3', 'ok'],
    ]);
    expect(rig.sim.control.stats().started).toBe(3);
  });
});

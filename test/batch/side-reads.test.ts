// The reads each item of a batch makes at its turn's end (src/turn/ballot-sources.ts), against the
// simulator over real HTTP: `/agents` once for the batch, `/budget` only when it could tell
// something (docs/reliability.md #270).
import { describe, expect, it } from 'vitest';
import { withRig, type Rig } from '../harness/rig.js';
import { resultLines, useBatchRig } from '../harness/batch-rig.js';
import { startRewritingProxy } from '../harness/rewriting-proxy.js';

const batch = useBatchRig('side-reads');

const reads = (r: Rig, path: RegExp): number =>
  r.sim.requests.filter((q) => q.method === 'GET' && path.test(q.path)).length;
const AGENTS = /^\/agents(\?|$)/;
const BUDGET = /\/budget(\?|$)/;

async function runSix(r: Rig, flags: readonly string[] = []) {
  const items = await batch.file('six.txt', 'one\ntwo\nthree\nfour\nfive\nsix\n');
  const res = await r.run(['batch', items, '-j', '3', ...flags]);
  expect(res.code, res.stderr).toBe(0);
  const lines = resultLines(res.stdout);
  expect(lines).toHaveLength(6);
  return lines;
}

describe('the side reads at each item end (reliability #270)', () => {
  it('a batch reads `/agents` once, and every item still has its council and its cost', async () => {
    await withRig({}, async (r) => {
      const lines = await runSix(r);
      expect(reads(r, AGENTS)).toBe(1);
      for (const l of lines) {
        expect(l['verdict']).toMatchObject({ v: 2 });
        // The council's diversity comes from the listing: known, as when each item read its own.
        expect((l['verdict'] as { trust: { diversity: unknown } }).trust.diversity).not.toBeNull();
        expect((l['usage'] as { cost_usd: unknown }).cost_usd).toEqual(expect.any(Number));
      }
    });
  });

  it('a listing that gives nothing is not kept: each item asks again, and its diversity is unknown', async () => {
    await withRig({ withoutRoutes: ['agents'] }, async (r) => {
      const lines = await runSix(r);
      expect(reads(r, AGENTS)).toBe(6);
      for (const l of lines) expect((l['verdict'] as { trust: { diversity: unknown } }).trust.diversity).toBeNull();
    });
  });

  it('`/budget` is read only for an item whose stream and `/details` did not report its cost and tokens', async () => {
    await withRig({}, async (full) => {
      const lines = await runSix(full);
      expect(reads(full, BUDGET)).toBe(0);
      for (const l of lines) expect(l['usage']).toMatchObject({ cost_source: 'reported' });
    });
    await withRig({ faults: ['all:meter=none'] }, async (none) => {
      const lines = await runSix(none);
      expect(reads(none, BUDGET)).toBe(6);
      // Nothing reported anywhere: the cost is unknown, never 0.
      for (const l of lines) expect(l['usage']).toMatchObject({ cost_usd: null, cost_source: 'unknown' });
    });
  });

  it('an item whose council names an agent the shared listing lacks reads it again, and the items after it share the new one', async () => {
    await withRig({}, async (r) => {
      let agentReads = 0;
      // In front of the simulator: its first `/agents` answer lists one agent only (a listing older
      // than the rest of the council); every other request, and every later listing, passes through.
      const proxy = await startRewritingProxy(
        r.sim.url,
        (seen) => seen.method === 'GET' && seen.url === '/agents' && ++agentReads === 1,
        (_seen, body) => (body as unknown[]).slice(0, 1),
      );
      try {
        const items = await batch.file('three.txt', 'one\ntwo\nthree\n');
        // One at a time, so the order of the reads is the items' order.
        const res = await r.run(['batch', items, '-j', '1', '--url', proxy.url]);
        expect(res.code, res.stderr).toBe(0);
        const families = (l: Record<string, unknown>) =>
          (l['verdict'] as { trust: { diversity: { families: string[] } | null } }).trust.diversity?.families.length;
        const byId = new Map(resultLines(res.stdout).map((l) => [l['id'], l]));
        const [one, two, three] = ['line-1', 'line-2', 'line-3'].map((id) => byId.get(id) ?? {});
        // The first item read the old listing itself (as it would have alone); the second found it
        // lacking and read again; the third shared that read.
        expect(agentReads).toBe(2);
        expect(families(one ?? {})).toBe(1);
        expect(families(two ?? {})).toBeGreaterThan(1);
        expect(families(three ?? {})).toBe(families(two ?? {}));
      } finally {
        await proxy.close();
      }
    });
  });
});

// The `/agents` listing `ask --agents` checks the names against, reused by the verdict at the
// turn's end (src/turn/ballot-sources.ts checkedListing), against the simulator over real HTTP.
import { describe, expect, it } from 'vitest';
import { withRig, type Rig } from '../harness/rig.js';

const agentReads = (r: Rig): number =>
  r.sim.requests.filter((q) => q.method === 'GET' && /^\/agents(\?|$)/.test(q.path)).length;

interface Out {
  verdict: { trust: { diversity: unknown } };
}

async function askCouncil(r: Rig): Promise<Out> {
  const res = await r.run(['ask', '--agents', 'CortexA,CortexB', '--rounds', '2', '-o', 'json', 'Design a cache']);
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout) as Out;
}

describe('the listing --agents was checked against serves the verdict (reliability #275)', () => {
  it('one `/agents` read per turn, and the council still has its diversity', async () => {
    await withRig({}, async (r) => {
      const out = await askCouncil(r);
      expect(agentReads(r)).toBe(1);
      // Known, as when the end read the listing for itself.
      expect(out.verdict.trust.diversity).not.toBeNull();
    });
  });

  it('a server that lists no agents is asked once, and the diversity stays unknown', async () => {
    await withRig({ withoutRoutes: ['agents'] }, async (r) => {
      const out = await askCouncil(r);
      expect(agentReads(r)).toBe(1);
      expect(out.verdict.trust.diversity).toBeNull();
    });
  });
});

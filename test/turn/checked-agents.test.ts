// The `/agents` listing `ask --agents` checks the names against, reused by the verdict at the
// turn's end (src/turn/ballot-sources.ts checkedListing), against the simulator over real HTTP.
import { describe, expect, it } from 'vitest';
import { withRig, type Rig } from '../harness/rig.js';
import { startRewritingProxy } from '../harness/rewriting-proxy.js';
import type { Seen } from '../harness/scripted-server.js';

const agentReads = (r: Rig): number =>
  r.sim.requests.filter((q) => q.method === 'GET' && /^\/agents(\?|$)/.test(q.path)).length;

interface Out {
  verdict: { trust: { diversity: unknown } };
}

async function askCouncil(r: Rig, url = r.sim.url): Promise<Out> {
  const res = await r.run([
    'ask',
    '--agents',
    'CortexA,CortexB',
    '--rounds',
    '2',
    '-o',
    'json',
    '--url',
    url,
    'Design a cache',
  ]);
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

  it('a council that names an agent the checked listing lacks reads `/agents` again', async () => {
    await withRig({}, async (r) => {
      let agentLists = 0;
      // In front of the simulator: the first listing (the names' check) lists the two named agents
      // only, and `/details` names a third as an author; everything else passes through.
      const isListing = (seen: Seen) => seen.method === 'GET' && seen.url === '/agents';
      const proxy = await startRewritingProxy(
        r.sim.url,
        (seen) => (isListing(seen) && ++agentLists === 1) || (seen.method === 'GET' && seen.url.endsWith('/details')),
        (seen, body) => {
          if (isListing(seen)) {
            return (body as Array<{ agent_id: string }>).filter((a) => ['CortexA', 'CortexB'].includes(a.agent_id));
          }
          const d = body as { history: Array<Record<string, unknown>> };
          const entry = d.history[0];
          if (entry !== undefined) d.history.push({ ...entry, author_agent_id: 'CortexC' });
          return d;
        },
      );
      try {
        const out = await askCouncil(r, proxy.url);
        expect(agentLists).toBe(2);
        expect(out.verdict.trust.diversity).not.toBeNull();
      } finally {
        await proxy.close();
      }
    });
  });
});

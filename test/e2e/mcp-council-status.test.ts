// Whether the whole council voted, as a host sees it through the MCP SDK's own client: the real
// CLI spawned over stdio against a simulator on loopback whose evaluator CortexB times out every
// round (its votes are stand-ins, reliability #222), and the progress rows of a held deliberation.
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, isError, structured, text, type McpHost } from '../harness/mcp-host.js';
import { useRig } from '../harness/rig.js';

const COUNCIL = { agents: ['CortexA', 'CortexB', 'CortexC'], rounds: 2 };
const QUESTION = 'Choose a queue for the billing events';

interface Council {
  status: string;
  asked: number | null;
  answered: number | null;
  timed_out: string[] | null;
  synthetic_share: number | null;
}
const councilOf = (r: unknown): Council => structured(r)['council'] as Council;

// Both answers the simulator gives to what the seeds leave open (docs/protocol.md §14).
describe.each(['default', 'strict'] as const)('nsed mcp: a council that lost a vote (%s profile)', (profile) => {
  const degraded = useRig({ profile, faults: ['all:evaluator-timeout=CortexB'] });
  const whole = useRig({ profile });
  let lossy: McpHost;
  let healthy: McpHost;
  beforeAll(async () => {
    lossy = await connectMcp(degraded);
    healthy = await connectMcp(whole);
  });
  afterAll(async () => {
    await lossy.close();
    await healthy.close();
  });

  it('says "degraded" and names who did not vote on the first line of its text, before the answer (reliability #222)', async () => {
    const r = await lossy.client.callTool({ name: 'deliberate', arguments: { question: QUESTION, ...COUNCIL } });
    expect(isError(r), text(r) + lossy.said()).toBe(false);
    const s = structured(r);
    expect(s['status']).toBe('complete');
    expect(councilOf(r)).toEqual({
      status: 'degraded',
      asked: 3,
      answered: 2,
      timed_out: ['CortexB'],
      synthetic_share: expect.any(Number) as number,
    });
    expect(councilOf(r).synthetic_share).toBeGreaterThan(0);
    const [first, ...rest] = text(r).split('\n');
    expect(first).toMatch(/^council degraded: CortexB did not vote \(timed out\); 2 of 3 answered/);
    expect(rest.join('\n')).toContain(String(s['content']));
  });

  it('a council that voted in full says "complete", with nobody timed out and no status line', async () => {
    const r = await healthy.client.callTool({ name: 'deliberate', arguments: { question: QUESTION, ...COUNCIL } });
    expect(isError(r), text(r)).toBe(false);
    expect(councilOf(r)).toEqual({ status: 'complete', asked: 3, answered: 3, timed_out: [], synthetic_share: 0 });
    expect(text(r)).not.toMatch(/^council /m);
    expect(text(r).startsWith(String(structured(r)['content']))).toBe(true);
  });

  it('on_partial "refuse" makes a degraded council a tool error, its answer still recorded in the store', async () => {
    const r = await lossy.client.callTool({
      name: 'deliberate',
      arguments: { question: QUESTION, ...COUNCIL, on_partial: 'refuse' },
    });
    expect(isError(r), text(r)).toBe(true);
    const s = structured(r);
    expect(councilOf(r).status).toBe('degraded');
    expect(text(r).split('\n')[0]).toMatch(/^council degraded: CortexB did not vote/);
    expect(text(r)).toMatch(/refused: the council lost votes \(on_partial: refuse\); the answer is kept in session /);
    const stored = await degraded.session<{ turns: Array<{ role: string; status: string; content: string }> }>(
      String(s['session']),
    );
    const answer = stored.turns.findLast((t) => t.role === 'assistant');
    expect(answer?.status).toBe('complete');
    expect(answer?.content).toBe(s['content']);
    expect(String(answer?.content).length).toBeGreaterThan(0);
  });

  it('a failed max-synthetic gate makes a degraded council a tool error too; so does the wait that sees the end of a refusing deliberation', async () => {
    const gated = await lossy.client.callTool({
      name: 'deliberate',
      arguments: { question: QUESTION, ...COUNCIL, gates: { 'max-synthetic': 0.1 } },
    });
    expect(isError(gated), text(gated)).toBe(true);
    expect(text(gated)).toMatch(/refused: the council lost votes \(max-synthetic\)/);
    const started = await lossy.client.callTool({
      name: 'deliberate',
      arguments: { question: QUESTION, ...COUNCIL, on_partial: 'refuse', wait: false },
    });
    const session = String(structured(started)['session']);
    let after = Number(structured(started)['seq']);
    for (let calls = 1; calls <= 50; calls++) {
      const r = await lossy.client.callTool({ name: 'wait', arguments: { session, after, timeout_s: 30 } });
      after = Number(structured(r)['seq']);
      if (structured(r)['done'] !== true) continue;
      expect(councilOf(r).status).toBe('degraded');
      expect(isError(r), text(r)).toBe(true);
      return;
    }
    throw new Error('wait never reported done');
  });

  it('-o json carries the same council as the MCP result: degraded with CortexB named, or complete', async () => {
    const args = ['ask', '-o', 'json', '--agents', COUNCIL.agents.join(','), '--rounds', '2', QUESTION];
    const lost = await degraded.run(args);
    expect(lost.code, lost.stderr).toBe(0);
    expect((JSON.parse(lost.stdout) as { council: Council }).council).toMatchObject({
      status: 'degraded',
      asked: 3,
      answered: 2,
      timed_out: ['CortexB'],
    });
    const full = await whole.run(args);
    expect((JSON.parse(full.stdout) as { council: Council }).council).toEqual({
      status: 'complete',
      asked: 3,
      answered: 3,
      timed_out: [],
      synthetic_share: 0,
    });
  });

  it('on_partial "refuse" leaves a council that voted in full an ordinary answer', async () => {
    const r = await healthy.client.callTool({
      name: 'deliberate',
      arguments: { question: QUESTION, ...COUNCIL, on_partial: 'refuse' },
    });
    expect(isError(r), text(r)).toBe(false);
    expect(councilOf(r).status).toBe('complete');
  });
});

describe('nsed mcp: progress rows in rounds on a held simulator', { timeout: 180_000 }, () => {
  const held = useRig({ hold: true, faults: ['all:evaluator-timeout=CortexB'] });
  let host: McpHost;
  beforeAll(async () => {
    host = await connectMcp(held);
  });
  afterAll(async () => {
    await host.close();
  });

  it('each notification a row of at most 200 characters, progress and total in rounds, rising to the rounds planned (reliability #212)', async () => {
    const seen: Progress[] = [];
    const waiters = new Set<() => void>();
    const until = async (test: (p: Progress) => boolean): Promise<Progress> => {
      for (;;) {
        const hit = seen.find(test);
        if (hit !== undefined) return hit;
        await new Promise<void>((resolve) => waiters.add(resolve));
      }
    };
    const call = host.client.callTool(
      { name: 'deliberate', arguments: { question: QUESTION, ...COUNCIL, timeout_s: 55 } },
      CallToolResultSchema,
      {
        onprogress: (p) => {
          seen.push(p);
          for (const w of [...waiters]) w();
          waiters.clear();
        },
        resetTimeoutOnProgress: true,
      },
    );
    const job = await held.sim.control.nextJob();
    held.sim.control.release(job, 2);
    // The compat surface says a round's convergence in its reasoning, the native one counts stand-ins.
    const first = await until((p) => /^round 1\/2 · convergence /.test(p.message ?? ''));
    expect(first.message).toMatch(
      /^round 1\/2 · convergence \d\.\d\d · leader Cortex[ABC] \(\d\.\d\d\)( · \d+ wrong claims?)?( · \d+ stand-in votes?)?$/,
    );
    expect(first.total).toBe(2);
    expect(first.progress).toBeGreaterThan(0.5);
    expect(first.progress).toBeLessThanOrEqual(1);
    held.sim.control.release(job);
    const r = await call;
    expect(structured(r)['done'], text(r)).toBe(true);
    const progress = seen.map((p) => p.progress);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThan(progress[i - 1] ?? Infinity);
    for (const p of seen) {
      expect((p.message ?? '').length).toBeLessThanOrEqual(200);
      if (p.total !== undefined) expect(p.progress).toBeLessThanOrEqual(p.total);
    }
    expect(seen.some((p) => /^round 2\/2 · /.test(p.message ?? ''))).toBe(true);
    expect(seen.at(-1)?.progress).toBeGreaterThan(1.5);
  });
});

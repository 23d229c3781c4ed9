import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withRig, useRig } from '../harness/rig.js';
import { until } from '../harness/sse.js';

// Who voted how, end to end against the simulator over real HTTP: the names of a council checked
// before anything is sent, and the ballots of /details in the verdict (docs/ndjson.md §4b).

const rig = useRig();

const sent = (method: string, path: RegExp): number =>
  rig.sim.requests.filter((r) => r.method === method && path.test(r.path)).length;

describe('--agents names the server does not list (reliability #221)', () => {
  it('are refused with exit 2 naming the unknown and listing the known, with nothing sent and no session left', async () => {
    const before = sent('POST', /^\/deliberation$/);
    const r = await rig.run(['ask', '--agents', 'CortexA,Nobody', '-o', 'json', 'Design a cache']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown agent Nobody: the orchestrator lists CortexA, CortexB/);
    expect(r.stderr).toContain("'nsed agents' lists them");
    expect(sent('POST', /^\/deliberation$/)).toBe(before);
    const files = await readdir(join(rig.home, 'sessions')).catch(() => []);
    expect(files.filter((f) => f.endsWith('.json'))).toEqual([]);
  });

  it('a council the server lists runs', async () => {
    const r = await rig.run(['ask', '--agents', 'CortexA,CortexB', '-o', 'final', 'Design a cache']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent('GET', /^\/agents$/)).toBeGreaterThan(0);
  });
});

describe('a native deliberation whose end the stream did not carry (reliability #223)', () => {
  const COUNCIL = ['--agents', 'CortexA,CortexB,CortexC', '--rounds', '3'];
  interface Out {
    verdict: { rounds: { completed: number | null }; convergence: { final: number | null }; chosen: unknown };
    gate: { status: string } | null;
  }

  it('resume after the job ended while nsed was dead rebuilds the rounds and verdict of the uninterrupted run from /details', async () => {
    await withRig({ hold: true }, async (held) => {
      const prompt = 'Plan the schema migration of the billing tables';
      const run = held.start(['ask', '-o', 'json', ...COUNCIL, '--min-convergence', '10%', prompt]);
      held.sim.control.release(await held.sim.control.nextJob());
      const base = await run.result;
      expect(base.code, base.stderr).toBe(0);
      const uninterrupted = JSON.parse(base.stdout) as Out;
      expect(uninterrupted.verdict.rounds.completed).toBe(3);

      const child = held.spawn(['ask', '-o', 'json', ...COUNCIL, prompt]);
      const id = await held.sim.control.nextJob();
      await until(async () => {
        const { stdout } = await held.run(['sessions', 'ls', '--state', 'running', '--ids']);
        return stdout.trim() !== '';
      });
      child.kill('SIGKILL');
      expect((await child.result).signal).toBe('SIGKILL');
      held.sim.control.release(id);
      await held.sim.control.ended(id);

      const resumed = await held.run(['resume', '--last', '-o', 'json', '--min-convergence', '10%']);
      expect(resumed.code, resumed.stderr).toBe(0);
      const out = JSON.parse(resumed.stdout) as Out;
      expect(out.verdict).toEqual(uninterrupted.verdict);
      expect(out.gate).toEqual(uninterrupted.gate);
    });
  });
});

describe('gates on trust, on both paths (docs/ndjson.md §4c)', () => {
  interface Json {
    verdict: {
      v: number;
      trust: { endorse: { count: number; of: number } | null; agreement: number | null };
      ballots: { chosen: Array<{ evaluator: string; stance: string | null }> } | null;
      dissent: Array<{ agent: string; stance: string }> | null;
    };
    gate: { status: string; reason?: string; checks: Array<{ name: string; status: string; reason?: string }> } | null;
    usage: { input_tokens: number | null; cost_usd: number | null; cost_source: string };
  }
  const PATHS = [
    ['compat', ['-p', 'fast']],
    ['native', ['--agents', 'CortexA,CortexB,CortexC', '--rounds', '2']],
  ] as const;

  it.each(PATHS)(
    '%s: the ballots, endorsements and agreement come from /details, and their gates pass and fail on them',
    async (_path, council) => {
      const base = await rig.run(['ask', '-o', 'json', ...council, 'Choose a queue for the billing events']);
      expect(base.code, base.stderr).toBe(0);
      const v = (JSON.parse(base.stdout) as Json).verdict;
      expect(v.v).toBe(2);
      expect(v.ballots?.chosen.length).toBeGreaterThan(0);
      const endorse = v.trust.endorse;
      const agreement = v.trust.agreement;
      if (endorse === null || agreement === null)
        throw new Error('the simulator reported no stances or claim verdicts');
      // Dissent is the evaluators whose stance disagrees, and only those.
      expect(v.dissent?.map((d) => d.agent).sort()).toEqual(
        (v.ballots?.chosen ?? [])
          .filter((b) => b.stance === 'disagree' || b.stance === 'strong_disagree')
          .map((b) => b.evaluator)
          .sort(),
      );
      const judge = async (gates: string[]): Promise<{ code: number; json: Json }> => {
        const r = await rig.run(['ask', '-o', 'json', ...council, ...gates, 'Choose a queue for the billing events']);
        return { code: r.code, json: JSON.parse(r.stdout) as Json };
      };
      const pass = await judge(['--min-endorse', String(endorse.count), '--min-agreement', String(agreement)]);
      expect(pass.code).toBe(0);
      expect(pass.json.gate?.status).toBe('pass');
      const fail = await judge(['--min-endorse', String(endorse.of + 1)]);
      expect(fail.code).toBe(12);
      expect(fail.json.gate?.checks).toEqual([expect.objectContaining({ name: 'min-endorse', status: 'fail' })]);
      const share = await judge(['--min-endorse', '100%']);
      expect(share.json.gate?.checks[0]?.name).toBe('min-endorse-share');
    },
  );

  it('a council whose evaluator timed out: its stand-in votes are synthetic, and a convergence gate above --max-synthetic is inconclusive (reliability #222)', async () => {
    await withRig({ faults: ['all:evaluator-timeout=CortexB'] }, async (own) => {
      const r = await own.run([
        'ask',
        '-o',
        'json',
        '--agents',
        'CortexA,CortexB,CortexC',
        '--rounds',
        '2',
        '--min-convergence',
        '0',
        '--max-synthetic',
        '0.1',
        'Choose a queue for the billing events',
      ]);
      expect(r.code, r.stderr).toBe(12);
      const json = JSON.parse(r.stdout) as Json & { verdict: { trust: { synthetic_share: { final: number } } } };
      expect(json.verdict.trust.synthetic_share.final).toBeGreaterThan(0.1);
      expect(json.gate?.checks).toEqual([
        expect.objectContaining({ name: 'min-convergence', status: 'inconclusive', reason: 'synthetic_votes' }),
        expect.objectContaining({ name: 'max-synthetic', status: 'fail' }),
      ]);
      expect(r.stderr).toContain('mostly synthetic stand-ins');
    });
  });

  it('what the turn cost: tokens and dollars the server reported, in -o json and the recorded turn; a server that reports none leaves every figure null', async () => {
    const r = await rig.run(['ask', '-o', 'json', '-p', 'fast', 'Choose a queue for the billing events']);
    const json = JSON.parse(r.stdout) as Json & { session: string };
    expect(json.usage.cost_source).toBe('reported');
    expect(json.usage.cost_usd).toBeGreaterThan(0);
    const stored = await rig.session<{ turns: Array<{ role: string; usage?: unknown }> }>(json.session);
    expect(stored.turns.find((t) => t.role === 'assistant')?.usage).toEqual(json.usage);
    await withRig({ faults: ['all:meter=none'] }, async (own) => {
      const none = await own.run(['ask', '-o', 'json', '-p', 'fast', 'Choose a queue for the billing events']);
      const u = (JSON.parse(none.stdout) as Json).usage;
      expect(u.cost_usd).toBeNull();
      expect(u.cost_source).toBe('unknown');
    });
  });
});

describe('a gate on what the turn cost (docs/ndjson.md §4c)', () => {
  it('passes under the cost, fails over it, is judged again by nsed gate, and is inconclusive when the server meters nothing', async () => {
    const q = ['ask', '-o', 'json', '-p', 'fast', 'Choose a queue for the billing events'];
    const base = JSON.parse((await rig.run(q)).stdout) as { usage: { cost_usd: number } };
    const cost = base.usage.cost_usd;
    expect(cost).toBeGreaterThan(0);
    const under = await rig.run([...q, '--max-cost-gate', String(cost * 2)]);
    expect(under.code, under.stderr).toBe(0);
    const over = await rig.run([...q, '--max-cost-gate', String(cost / 2)]);
    expect(over.code).toBe(12);
    expect(over.stderr).toContain('gate max-cost failed: what the turn cost, in dollars');
    const again = await rig.run(['gate', '--last', '--max-cost-gate', String(cost * 2)]);
    expect(again.code, again.stderr).toBe(0);
    await withRig({ faults: ['all:meter=none'] }, async (own) => {
      const unknown = await own.run([...q, '--max-cost-gate', '100']);
      expect(unknown.code).toBe(13);
      expect(unknown.stderr).toContain(
        'nsed: gate max-cost inconclusive: the server did not report what the turn cost, in dollars (expected at most 100)\n',
      );
      const json = JSON.parse(unknown.stdout) as { gate: { reason: string; checks: Array<{ actual: unknown }> } };
      expect(json.gate).toMatchObject({ reason: 'not_reported', checks: [{ actual: null }] });
    });
  });
});

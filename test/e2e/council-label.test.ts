import { describe, expect, it } from 'vitest';
import { makeRig, parseNdjson, useRig } from '../harness/rig.js';

/**
 * A council chosen with --agents (and --rounds) instead of a policy: recorded on the session,
 * reused by continue, and labelled by its agents everywhere, never as a policy. Through the real
 * CLI (in-process) against the simulator over real HTTP.
 */

const rig = useRig();

const ofType = (stdout: string, type: string) => parseNdjson(stdout).filter((e) => e['type'] === type);
const sessionOf = (r: { stdout: string }): string => String(ofType(r.stdout, 'turn-start')[0]?.['session']);

describe('a council chosen with --agents is recorded on the session', () => {
  it('records --agents/--rounds on the session; continue reuses them, a flag overrides one, exports show them', async () => {
    const submits = () =>
      rig.sim.requests
        .filter((q) => q.method === 'POST' && q.path === '/deliberation')
        .map((q) => q.body as Record<string, unknown>);
    // No -p: --agents chooses the council itself, and a policy beside it is refused.
    const first = await rig.run([
      'ask',
      '-o',
      'ndjson',
      '--agents',
      'CortexA,CortexB',
      '--rounds',
      '2',
      'a council question',
    ]);
    expect(first.code).toBe(0);
    const id = sessionOf(first);
    expect(submits().at(-1)).toMatchObject({ agent_names: ['CortexA', 'CortexB'], deliberation_rounds: 2 });

    const again = await rig.run(['continue', '-s', id, '-o', 'ndjson', 'and then?']);
    expect(again.code).toBe(0);
    expect(submits().at(-1)).toMatchObject({ agent_names: ['CortexA', 'CortexB'], deliberation_rounds: 2 });

    const fewer = await rig.run(['continue', '-s', id, '--rounds', '1', '-o', 'ndjson', 'shorter?']);
    expect(fewer.code).toBe(0);
    expect(submits().at(-1)).toMatchObject({ agent_names: ['CortexA', 'CortexB'], deliberation_rounds: 1 });

    const doc = JSON.parse((await rig.run(['sessions', 'export', id, '--format', 'json'])).stdout) as {
      council: unknown;
    };
    expect(doc.council).toEqual({ agents: ['CortexA', 'CortexB'], rounds: 1 });
    expect((await rig.run(['sessions', 'export', id, '--format', 'markdown'])).stdout).toContain(
      '- Council: CortexA, CortexB · 1 rounds',
    );
  });
});

describe('a council chosen with --agents is not labelled with a policy', () => {
  const council = ['--agents', 'CortexA,CortexB', '--rounds', '2'];

  it('turn-start, -o json, text, the store, exports, sessions ls and show name the agents, not nsed:*', async () => {
    const r = await rig.run(['ask', ...council, '-o', 'ndjson', 'a council question']);
    expect(r.code, r.stderr).toBe(0);
    const start = ofType(r.stdout, 'turn-start')[0];
    expect(start).toMatchObject({ policy: null, agents: ['CortexA', 'CortexB'], path: 'native' });
    const id = String(start?.['session']);
    expect(r.stdout).not.toContain('nsed:*');

    const json = JSON.parse((await rig.run(['ask', ...council, '-o', 'json', 'again'])).stdout) as Record<
      string,
      unknown
    >;
    expect(json).toMatchObject({ policy: null, agents: ['CortexA', 'CortexB'] });
    const text = await rig.run(['ask', ...council, 'and in text']);
    expect(text.stderr).toMatch(/^session \S+ · job \S+ · agents CortexA, CortexB$/m);
    expect(text.stderr).not.toContain('policy');

    const saved = await rig.session<{ turns: Array<Record<string, unknown>> }>(id);
    const answer = saved.turns.find((t) => t['role'] === 'assistant');
    expect(answer?.['policy_id']).toBeUndefined();
    expect(answer?.['agents']).toEqual(['CortexA', 'CortexB']);

    const doc = JSON.parse((await rig.run(['sessions', 'export', id, '--format', 'json'])).stdout) as {
      policy: unknown;
      turns: Array<{ role: string; policy: unknown; agents: unknown }>;
    };
    expect(doc.policy).toBeNull();
    expect(doc.turns.find((t) => t.role === 'assistant')).toMatchObject({
      policy: null,
      agents: ['CortexA', 'CortexB'],
    });
    const exported = parseNdjson((await rig.run(['sessions', 'export', id, '--format', 'ndjson'])).stdout);
    expect(exported[0]).toMatchObject({ type: 'turn-start', policy: null, agents: ['CortexA', 'CortexB'] });
    for (const format of ['markdown', 'thread']) {
      expect((await rig.run(['sessions', 'export', id, '--format', format])).stdout, format).not.toContain('nsed:*');
    }

    const listed = JSON.parse((await rig.run(['sessions', 'ls', '--json'])).stdout) as Array<Record<string, unknown>>;
    expect(listed.find((s) => s['id'] === id)).toMatchObject({ policy: null, agents: ['CortexA', 'CortexB'] });
    const line = (await rig.run(['sessions', 'ls'])).stdout.split('\n').find((l) => l.startsWith(id));
    expect(line?.split('\t')[2]).toBe('agents CortexA,CortexB');
    expect((await rig.run(['sessions', 'ls', '--policy', '*', '--ids'])).stdout).not.toContain(id);
    const shown = (await rig.run(['sessions', 'show', id])).stdout;
    expect(shown).toMatch(new RegExp(`^session ${id} · agents CortexA, CortexB · `, 'm'));
    expect(shown).not.toContain('nsed:*');
  });

  it('-p with --agents is refused with exit 2 before anything is sent or stored', async () => {
    const before = rig.sim.requests.length;
    const sessions = (await rig.run(['sessions', 'ls', '--ids'])).stdout;
    const r = await rig.run(['ask', '-p', 'deep', ...council, 'which council?']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('nsed: --agents chooses the council itself; it does not go with -p/--policy');
    expect(r.stderr.split('\n')[1]).toMatch(/^hint: /);
    expect(rig.sim.requests.length).toBe(before);
    expect((await rig.run(['sessions', 'ls', '--ids'])).stdout).toBe(sessions);
  });

  it('continue -p on a council session runs that policy (the recorded agents give way) and labels it so', async () => {
    const first = await rig.run(['ask', ...council, '-o', 'ndjson', 'a council question']);
    const id = String(ofType(first.stdout, 'turn-start')[0]?.['session']);
    const next = await rig.run(['continue', '-s', id, '-p', 'fast', '-o', 'ndjson', 'now with a policy']);
    expect(next.code, next.stderr).toBe(0);
    expect(ofType(next.stdout, 'turn-start')[0]).toMatchObject({ policy: 'nsed:fast', agents: null, path: 'compat' });
    const chat = rig.sim.requests.filter((q) => q.path === '/v1/chat/completions').at(-1);
    expect((chat?.body as { model: string }).model).toBe('nsed:fast');
    const saved = await rig.session<{ council?: unknown; active_policy: string }>(id);
    expect(saved.council).toBeUndefined();
    expect(saved.active_policy).toBe('nsed:fast');
  });
});

describe('a resumed council turn keeps its label', () => {
  it('resume after a detach labels the turn with the agents, in NDJSON and the store', async () => {
    const held = await makeRig({ hold: true });
    try {
      const next = held.sim.control.nextJob();
      const run = held.start([
        'ask',
        '--agents',
        'CortexA,CortexB',
        '--rounds',
        '2',
        '-o',
        'ndjson',
        'a council question',
      ]);
      const job = await next;
      await run.output((o) => o.includes('"type":"job"'), 60_000);
      run.interrupt(143);
      expect((await run.result).code).toBe(143);
      const id = String(ofType(run.stdout.text, 'turn-start')[0]?.['session']);
      held.sim.control.release(job);
      const r = await held.run(['resume', '-s', id, '-o', 'ndjson']);
      expect(r.code, r.stderr).toBe(0);
      expect(ofType(r.stdout, 'turn-start')[0]).toMatchObject({ policy: null, agents: ['CortexA', 'CortexB'] });
      const saved = await held.session<{ turns: Array<Record<string, unknown>> }>(id);
      const answers = saved.turns.filter((t) => t['role'] === 'assistant');
      expect(answers.map((t) => [t['policy_id'], t['agents'], t['status']])).toEqual([
        [undefined, ['CortexA', 'CortexB'], 'complete'],
      ]);
    } finally {
      await held.close();
    }
  });
});

import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeToolKit, type ToolKit } from './fixtures/tools.js';
import { startPlainServer } from '../everyday/plain-server.js';
import { makeRig, parseNdjson, useRig } from '../harness/rig.js';

/**
 * Issue 23 item 7, the client's small truths, each seen through the real CLI (in-process)
 * against the simulator over real HTTP.
 */

const rig = useRig({ toolWaitMs: 10 * 60_000 });
let kit: ToolKit;
beforeAll(async () => {
  // Calls wait ten minutes for their result: the answer always comes from the test's own step.
  kit = await makeToolKit();
});
afterAll(async () => {
  await rm(kit.dir, { recursive: true, force: true });
});

const ofType = (stdout: string, type: string) => parseNdjson(stdout).filter((e) => e['type'] === type);

describe('native tool names (issue 23 item 7)', () => {
  it('keeps the declared name on the native path in NDJSON, text, the store and every export', async () => {
    const tools = await kit.toolsFile(['calculator']);
    const council = ['--agents', 'CortexA,CortexB', '--rounds', '2', '--tools', tools];
    const r = await rig.run(['ask', ...council, '-o', 'ndjson', 'Use the calculator to compute 2+2']);
    expect(r.code, r.stderr).toBe(0);
    expect(ofType(r.stdout, 'tool-call').map((e) => e['name'])).toEqual(['calculator']);
    expect(ofType(r.stdout, 'tool-result').map((e) => e['name'])).toEqual(['calculator']);
    const id = String(ofType(r.stdout, 'turn-start')[0]?.['session']);

    const saved = await rig.session<{ turns: Array<{ tool_calls?: Array<{ name: string }> }> }>(id);
    expect(saved.turns.flatMap((t) => t.tool_calls ?? []).map((c) => c.name)).toEqual(['calculator']);
    for (const format of ['json', 'ndjson', 'markdown', 'messages', 'thread']) {
      const out = await rig.run(['sessions', 'export', id, '--format', format]);
      expect(out.code).toBe(0);
      expect(out.stdout, format).not.toContain('user_calculator');
    }
    const exported = parseNdjson((await rig.run(['sessions', 'export', id, '--format', 'ndjson'])).stdout);
    expect(exported.filter((e) => e['type'] === 'tool-call').map((e) => e['name'])).toEqual(['calculator']);

    const text = await rig.run(['ask', ...council, 'Use the calculator to compute 2+2']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toMatch(/tool call calculator/);
    expect(text.stderr + text.stdout).not.toContain('user_calculator');
  });
});

describe('the session id on stderr where no job names it (issue 23 item 7)', () => {
  it('-m against a plain OpenAI-compatible server: text mode names the session on stderr', async () => {
    const plain = await startPlainServer('Plain answer.');
    try {
      const r = await rig.run(['ask', '--url', plain.url, '-m', 'llama3.2', 'hello']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('Plain answer.\n');
      const [id] = (await rig.run(['sessions', 'ls', '--ids', '-n', '1'])).stdout.split('\n');
      expect(r.stderr).toBe(`session ${id} · policy llama3.2\n`);
    } finally {
      await plain.close();
    }
  });

  it('a passthrough answer on the strict profile (no session id anywhere) names the session on stderr', async () => {
    const strict = await makeRig({ profile: 'strict' });
    try {
      const r = await strict.run(['ask', '-p', 'passthrough', 'hello']);
      expect(r.code, r.stderr).toBe(0);
      const [id] = (await strict.run(['sessions', 'ls', '--ids', '-n', '1'])).stdout.split('\n');
      expect(r.stderr).toBe(`session ${id} · policy nsed:passthrough\n`);
    } finally {
      await strict.close();
    }
  });

  it('an NSED answer names the session once, in its job line, and -q keeps stderr empty', async () => {
    const r = await rig.run(['ask', '-p', 'fast', 'hello']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.match(/session /g)).toHaveLength(1);
    expect(r.stderr).toMatch(/^session \S+ · job \S+ · policy nsed:fast$/m);
    expect((await rig.run(['ask', '-q', '-p', 'fast', 'hello'])).stderr).toBe('');
  });
});

describe('nsed doctor against a plain OpenAI-compatible server (issue 23 item 7)', () => {
  it('says that -m works there, and exits 0, instead of "not ready"', async () => {
    const plain = await startPlainServer('Plain answer.');
    try {
      const r = await rig.run(['doctor', '--url', plain.url]);
      expect(r.code, r.stdout).toBe(0);
      expect(r.stdout).not.toMatch(/not ready/);
      expect(r.stdout).toMatch(
        /^✓ server: an OpenAI-compatible server, not an NSED orchestrator \(2 models: llama3\.2, qwen2\.5:7b\)/m,
      );
      expect(r.stdout).not.toMatch(/^✗/m);
      expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('ready for -m: nsed ask -m llama3.2 works here');
      const json = JSON.parse((await rig.run(['doctor', '--url', plain.url, '-o', 'json'])).stdout) as {
        ok: boolean;
        checks: Array<{ name: string; ok: boolean }>;
      };
      expect(json.ok).toBe(true);
      expect(json.checks.find((c) => c.name === 'server')?.ok).toBe(true);
      // What doctor promises works: ask -m with the model it named.
      expect((await rig.run(['ask', '--url', plain.url, '-m', 'llama3.2', '-o', 'final', 'hi'])).stdout).toBe(
        'Plain answer.\n',
      );
    } finally {
      await plain.close();
    }
  });

  it('still fails where nothing OpenAI-compatible answers either (exit 3, no /policies, no /v1/models)', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((_req, res) => res.writeHead(404).end('no'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const r = await rig.run(['doctor', '--url', `http://127.0.0.1:${port}`]);
      expect(r.code).toBe(3);
      expect(r.stdout).toMatch(
        /^✗ server: not an NSED orchestrator \(GET \/policies: 404\), and GET \/v1\/models failed/m,
      );
      expect(r.stdout).toMatch(/not ready \(exit 3\)/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('a council chosen with --agents is not labelled with a policy (issue 23 item 7)', () => {
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

describe('a resumed council turn keeps its label (issue 23 item 7)', () => {
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

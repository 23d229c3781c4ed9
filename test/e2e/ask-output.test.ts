import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNdjson, useRig } from '../harness/rig.js';

const ESC = String.fromCharCode(27);
const ANSI = new RegExp(`${ESC}[\\[\\]]`);
const PROMPT = 'Design a distributed cache';

const rig = useRig();

async function sessionFiles(): Promise<Array<Record<string, unknown>>> {
  const dir = join(rig.home, 'sessions');
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json'));
  return Promise.all(
    names.map(async (n) => JSON.parse(await readFile(join(dir, n), 'utf8')) as Record<string, unknown>),
  );
}

describe.each([
  ['compat', [] as string[]],
  ['native', ['--agents', 'CortexA,CortexB,CortexC', '--rounds', '2']],
])('nsed ask on the %s path', (path, extra) => {
  it('text mode writes exactly the answer on stdout and the rounds on stderr', async () => {
    const ndjson = await rig.run(['ask', '-o', 'ndjson', ...extra, PROMPT]);
    const finish = parseNdjson(ndjson.stdout).find((e) => e['type'] === 'finish');
    const r = await rig.run(['ask', ...extra, PROMPT]);
    expect(r.code).toBe(0);
    // Ended by a newline like -o final, though the answer itself has none.
    const content = String(finish?.['content']);
    expect(content.endsWith('\n')).toBe(false);
    expect(r.stdout).toBe(`${content}\n`);
    expect(r.stdout).not.toMatch(ANSI);
    expect(r.stderr).toMatch(/round \d+\/\d+ · 3 candidates · leader \w+ -?\d\.\d\d/);
    // A council chosen with --agents is labelled with its agents, not a policy.
    expect(r.stderr).toMatch(
      path === 'native' ? /^session \S+ · job \S+ · agents Cortex/m : /^session \S+ · job \S+ · policy nsed:\*/m,
    );
  });

  it('ndjson mode prints one parseable versioned event per line with one terminal event', async () => {
    const r = await rig.run(['ask', '-o', 'ndjson', ...extra, PROMPT]);
    expect(r.code).toBe(0);
    expect(r.stdout.endsWith('\n')).toBe(true);
    const events = parseNdjson(r.stdout);
    events.forEach((e, i) => {
      expect(e['v']).toBe(1);
      expect(e['seq']).toBe(i + 1);
    });
    const types = events.map((e) => e['type']);
    expect(types[0]).toBe('turn-start');
    expect(events[0]).toMatchObject({ path, policy: path === 'native' ? null : 'nsed:*', url: rig.sim.url });
    expect(types.filter((t) => t === 'finish' || t === 'error')).toEqual(['finish']);
    expect(types.at(-1)).toBe('finish');
    expect(types).toContain('job');
    expect(types).toContain('round');
    expect(types).toContain('reasoning');
    const text = events
      .filter((e) => e['type'] === 'text')
      .map((e) => e['text'])
      .join('');
    const finish = events.at(-1) as Record<string, unknown>;
    expect(finish).toMatchObject({ finish_reason: 'stop', content: text });
    expect(typeof finish['session']).toBe('string');
    expect(typeof finish['job_id']).toBe('string');
    const round = events.find((e) => e['type'] === 'round' && e['scored'] === true) as Record<string, unknown>;
    expect(round).toMatchObject({ round: 1, scored: true });
    expect(Array.isArray(round['candidates'])).toBe(true);
    expect(r.stderr).toBe('');
  });

  it('final mode prints only the answer, once, with a trailing newline', async () => {
    const r = await rig.run(['ask', '-o', 'final', ...extra, PROMPT]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^## /);
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect(r.stdout.split('## ').length).toBe(2);
    expect(r.stdout).not.toMatch(ANSI);
  });

  it('json mode prints one object describing the turn', async () => {
    const r = await rig.run(['ask', '-o', 'json', ...extra, PROMPT]);
    expect(r.code).toBe(0);
    const obj = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(obj).toMatchObject({ policy: path === 'native' ? null : 'nsed:*', finish_reason: 'stop' });
    expect(String(obj['content'])).toMatch(/^## /);
    expect(String(obj['reasoning'])).toMatch(/Round 1/);
    expect((obj['rounds'] as unknown[]).length).toBeGreaterThan(0);
    const saved = (await sessionFiles()).find((s) => s['id'] === obj['session']);
    const turns = saved?.['turns'] as Array<Record<string, unknown>>;
    expect(turns.map((t) => [t['role'], t['status']])).toEqual([
      ['user', 'complete'],
      ['assistant', 'complete'],
    ]);
    expect(turns[1]).toMatchObject({ content: obj['content'], job_id: obj['job_id'], path });
    expect(turns[1]?.['policy_id']).toBe(path === 'native' ? undefined : 'nsed:*');
    expect(saved?.['pending_job']).toBeUndefined();
  });
});

describe('what nsed ask sends', () => {
  it('sends the policy as the model, the prompt as messages, and the session thread key', async () => {
    const before = rig.sim.requests.length;
    const r = await rig.run(['ask', '-p', 'fast', '--system', 'Be brief.', '-o', 'json', 'What is 2 + 2?']);
    expect(r.code).toBe(0);
    const req = rig.sim.requests.slice(before).find((q) => q.path === '/v1/chat/completions');
    expect(req?.body).toEqual({
      model: 'nsed:fast',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What is 2 + 2?' },
      ],
      stream: true,
    });
    const saved = (await sessionFiles()).find(
      (s) => s['id'] === (JSON.parse(r.stdout) as Record<string, unknown>)['session'],
    );
    expect(req?.headers['x-opencode-session']).toBe(saved?.['conversation_id']);
  });

  it('the native path submits a fresh room, the conversation id, messages and the council', async () => {
    const before = rig.sim.requests.length;
    const r = await rig.run([
      'ask',
      '--agents',
      'CortexA,CortexB',
      '--rounds',
      '2',
      '--system',
      'Be brief.',
      '-o',
      'json',
      'Why?',
    ]);
    expect(r.code).toBe(0);
    const session = (JSON.parse(r.stdout) as Record<string, unknown>)['session'] as string;
    const sub = rig.sim.requests.slice(before).find((q) => q.path === '/deliberation');
    const body = sub?.body as Record<string, unknown>;
    expect(body['room_id']).toMatch(new RegExp(`^${session}_[0-9a-f]{16}$`));
    expect(body).toMatchObject({
      messages: [{ role: 'user', content: 'Why?' }],
      agent_names: ['CortexA', 'CortexB'],
      deliberation_rounds: 2,
      system_instructions: 'Be brief.',
    });
    expect(body['conversation_id']).toMatch(/^thread-[0-9a-f]{32}$/);
    expect(
      rig.sim.requests.slice(before).some((q) => q.path === `/deliberation/${body['room_id'] as string}/resume`),
    ).toBe(true);
  });

  it('--no-stream asks for one chat.completion and still records the turn', async () => {
    const before = rig.sim.requests.length;
    const r = await rig.run(['ask', '--no-stream', '-o', 'json', 'Summarise CAP']);
    expect(r.code).toBe(0);
    const req = rig.sim.requests.slice(before).find((q) => q.path === '/v1/chat/completions');
    expect((req?.body as Record<string, unknown>)['stream']).toBe(false);
    const obj = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(String(obj['content'])).toMatch(/^## /);
    expect(obj['job_id']).toMatch(/^oc-/);
  });

  it('a passthrough policy gets the minimal sequence and a plain answer', async () => {
    const r = await rig.run(['ask', '-p', 'passthrough', '-o', 'final', 'Name a colour']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().length).toBeGreaterThan(0);
  });
});

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNdjson, useRig } from '../harness/rig.js';

interface SavedTurn {
  id: string;
  role: string;
  content: string;
  status: string;
  policy_id?: string;
  job_id?: string;
}
interface Saved {
  id: string;
  conversation_id: string;
  active_policy: string;
  forked_from?: { session: string; turn: string | null };
  turns: SavedTurn[];
}

const rig = useRig();

async function read(id: string): Promise<Saved> {
  return JSON.parse(await readFile(join(rig.home, 'sessions', `${id}.json`), 'utf8')) as Saved;
}

async function ask(args: string[]): Promise<string> {
  const r = await rig.run([...args, '-o', 'ndjson']);
  expect(r.code, r.stderr).toBe(0);
  return String(parseNdjson(r.stdout)[0]?.['session']);
}

function chatRequests(from: number) {
  return rig.sim.requests.slice(from).filter((q) => q.path === '/v1/chat/completions');
}

describe('nsed continue', () => {
  it('resends the whole lineage plus the new prompt on the same thread key, and records a policy swap per turn', async () => {
    const start = rig.sim.requests.length;
    const id = await ask(['ask', '-p', 'fast', 'What is the sound of one hand clapping?']);
    const first = await read(id);
    await ask(['continue', '-s', id, 'yo what about forests?']);
    await ask(['continue', '-s', id.slice(0, 12), '-p', 'deep', 'and oceans?']);
    const saved = await read(id);
    const reqs = chatRequests(start);
    expect(reqs.length).toBe(3);
    const a1 = saved.turns[1]?.content ?? '';
    const a2 = saved.turns[3]?.content ?? '';
    expect((reqs[1]?.body as { messages: unknown }).messages).toEqual([
      { role: 'user', content: 'What is the sound of one hand clapping?' },
      { role: 'assistant', content: a1 },
      { role: 'user', content: 'yo what about forests?' },
    ]);
    expect(reqs[2]?.body).toMatchObject({
      model: 'nsed:deep',
      messages: [
        { role: 'user', content: 'What is the sound of one hand clapping?' },
        { role: 'assistant', content: a1 },
        { role: 'user', content: 'yo what about forests?' },
        { role: 'assistant', content: a2 },
        { role: 'user', content: 'and oceans?' },
      ],
    });
    const keys = reqs.map((q) => q.headers['x-opencode-session']);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toBe(first.conversation_id);
    expect(saved.turns.filter((t) => t.role === 'assistant').map((t) => t.policy_id)).toEqual([
      'nsed:fast',
      'nsed:fast',
      'nsed:deep',
    ]);
    expect(saved.active_policy).toBe('nsed:deep');
    expect(new Set(saved.turns.map((t) => t.job_id).filter(Boolean)).size).toBe(3);
  });

  it('--last continues the most recently updated session', async () => {
    const id = await ask(['ask', 'first question']);
    await ask(['continue', '--last', 'second question']);
    expect((await read(id)).turns.map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('the native path keeps the conversation id and takes a fresh room each turn', async () => {
    const start = rig.sim.requests.length;
    const id = await ask(['ask', '--agents', 'CortexA,CortexB', 'Design a queue']);
    await ask(['continue', '-s', id, '--agents', 'CortexA,CortexB', 'with priorities?']);
    const subs = rig.sim.requests
      .slice(start)
      .filter((q) => q.path === '/deliberation')
      .map((q) => q.body as Record<string, unknown>);
    expect(subs.length).toBe(2);
    expect(subs[0]?.['conversation_id']).toBe(subs[1]?.['conversation_id']);
    expect(subs[0]?.['room_id']).not.toBe(subs[1]?.['room_id']);
    expect((subs[1]?.['messages'] as unknown[]).length).toBe(3);
  });

  it('an unknown session exits 3 and a bad id exits 2 before touching the disk (reliability #77)', async () => {
    expect((await rig.run(['continue', '-s', 'nope', 'q'])).code).toBe(3);
    const bad = await rig.run(['continue', '-s', '../../etc/passwd', 'q']);
    expect(bad.code).toBe(2);
    expect((await rig.run(['continue', 'q'])).code).toBe(2);
  });
});

describe('nsed fork', () => {
  it('forks at the first, a middle and the last turn with a fresh conversation id', async () => {
    const id = await ask(['ask', 'q1']);
    await ask(['continue', '-s', id, 'q2']);
    const parent = await read(id);
    for (const [at, kept] of [
      ['1', 1],
      ['2', 2],
      ['-1', 4],
      [parent.turns[2]?.id ?? '', 3],
    ] as const) {
      const r = await rig.run(['fork', id, '--at', String(at)]);
      expect(r.code, r.stderr).toBe(0);
      const fork = await read(r.stdout.trim());
      expect(fork.turns.map((t) => t.id)).toEqual(parent.turns.slice(0, kept).map((t) => t.id));
      expect(fork.conversation_id).not.toBe(parent.conversation_id);
      expect(fork.forked_from).toEqual({ session: id, turn: parent.turns[kept - 1]?.id });
    }
    expect((await rig.run(['fork', id, '--at', '9'])).code).not.toBe(0);
  });

  it('runs a prompt on the fork at once, on a thread key of its own', async () => {
    const start = rig.sim.requests.length;
    const id = await ask(['ask', 'q1']);
    const forkId = await ask(['fork', id, '--at', '2', 'try another angle']);
    const reqs = chatRequests(start);
    expect(reqs[1]?.headers['x-opencode-session']).not.toBe(reqs[0]?.headers['x-opencode-session']);
    expect((reqs[1]?.body as { messages: unknown[] }).messages.length).toBe(3);
    const fork = await read(forkId);
    expect(fork.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect((await read(id)).turns.length).toBe(2);
  });

  it('8 parallel forks of one session all succeed and leave the parent untouched', async () => {
    const id = await ask(['ask', 'q1']);
    const before = await readFile(join(rig.home, 'sessions', `${id}.json`), 'utf8');
    const runs = await Promise.all(Array.from({ length: 8 }, () => rig.run(['fork', id])));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const ids = runs.map((r) => r.stdout.trim());
    expect(new Set(ids).size).toBe(8);
    for (const f of ids) expect((await read(f)).turns.length).toBe(2);
    expect(await readFile(join(rig.home, 'sessions', `${id}.json`), 'utf8')).toBe(before);
  });
});

import { describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { getJson, post, postSse, readSse, sim } from '../harness/sse.js';

const base = {
  room_id: 'room-1a2b3c4d',
  conversation_id: 'thread-9f2c',
  agent_names: ['Corepunk01', 'Corepunk02', 'Corepunk03'],
  deliberation_rounds: 2,
};
const thread = [
  { role: 'user', content: 'What is the sound of one hand clapping?' },
  { role: 'assistant', content: 'A Zen koan attributed to Hakuin Ekaku…' },
  { role: 'user', content: 'yo what about forests?' },
];

/** Lets a job run to its end and waits for it (the simulator's control says when it ended). */
async function finished(s: SimServer, id: string): Promise<void> {
  s.control.release(id);
  await s.control.ended(id);
}

describe('POST /deliberation (protocol §3.3)', () => {
  it('accepts a submission with 202 {job_id} and runs it in the background', async () => {
    const s = await sim({ hold: true });
    const res = await post(`${s.url}/deliberation`, { ...base, messages: thread });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ job_id: 'room-1a2b3c4d' });
    const running = await getJson(`${s.url}/deliberation/room-1a2b3c4d/result`);
    expect(running.body).toEqual({ job_id: 'room-1a2b3c4d', status: 'running', result: null });
    await finished(s, 'room-1a2b3c4d');
    const done = (await getJson(`${s.url}/deliberation/room-1a2b3c4d/result`)).body as {
      status: string;
      result: string;
    };
    expect(done.status).toBe('completed');
    expect(done.result).toMatch(/^## Yo what about forests\?/);
    expect(done.result).toContain('This builds on the earlier question (“What is the sound of one hand clapping?”)');
  });

  it('returns messages alongside user_query from /details, as the thread tutorial says', async () => {
    const s = await sim();
    await post(`${s.url}/deliberation`, { ...base, messages: thread, system_instructions: 'Be brief.' });
    await finished(s, base.room_id);
    const { status, body } = await getJson(`${s.url}/deliberation/${base.room_id}/details`);
    expect(status).toBe(200);
    const d = body as Record<string, unknown> & {
      history: Array<Record<string, unknown>>;
      rounds: unknown[];
      final_result: Record<string, unknown>;
    };
    expect(d.job_id).toBe(base.room_id);
    expect(d.status).toBe('completed');
    expect(d.user_query).toBe(
      '[user] What is the sound of one hand clapping?\n\n[assistant] A Zen koan attributed to Hakuin Ekaku…\n\n[user] yo what about forests?',
    );
    expect(d.query).toBe(d.user_query);
    expect(d.messages).toEqual(thread);
    expect(d.system_instructions).toBe('Be brief.');
    expect(d.conversation_id).toBe('thread-9f2c');
    expect(d.rounds).toHaveLength(2);
    expect(d.history).toHaveLength(6);
    const entry = d.history[0] as {
      round: number;
      author_agent_id: string;
      proposal: { content: string; thought_process: string };
      evaluations: Array<{ evaluator_agent_id: string; evaluation: { score: number } }>;
      aggregated_score: number;
    };
    expect(entry.round).toBe(1);
    expect(entry.author_agent_id).toBe('Corepunk01');
    expect(entry.proposal.content.length).toBeGreaterThan(50);
    expect(entry.evaluations.map((e) => e.evaluator_agent_id)).toEqual(['Corepunk02', 'Corepunk03']);
    expect(typeof entry.aggregated_score).toBe('number');
    expect(d.final_result.round).toBe(2);
  });

  it('stores a user_query exactly as sent and omits messages', async () => {
    const s = await sim();
    const query =
      '[user] What is the sound of one hand clapping?\n\n[assistant] A Zen koan…\n\n[user] yo what about forests?';
    await post(`${s.url}/deliberation`, { ...base, user_query: query, new_turn: 'yo what about forests?' });
    const d = (await getJson(`${s.url}/deliberation/${base.room_id}/details`)).body as Record<string, unknown>;
    expect(d.user_query).toBe(query);
    expect('messages' in d).toBe(false);
  });

  it('uses deliberation_rounds (default 3) and the agent names', async () => {
    const s = await sim();
    await post(`${s.url}/deliberation`, { room_id: 'r1', user_query: 'Pick a queue', agent_names: ['A1', 'B2'] });
    const r = await readSse(await post(`${s.url}/deliberation/r1/resume`, ''));
    const reasoning = r.chunks.flatMap((c) => c.choices[0]?.delta.reasoning_content ?? []);
    expect(reasoning).toContain('Round 3/3 — proposals from A1, B2');
  });

  it.each([
    [
      'messages and user_query together',
      { ...base, messages: thread, user_query: 'x' },
      /either messages or user_query, not both/,
    ],
    [
      'a system turn in messages',
      { ...base, messages: [{ role: 'system', content: 'be nice' }, ...thread] },
      /system turn is not allowed/,
    ],
    [
      'new_turn that is not the last user turn',
      { ...base, messages: thread, new_turn: 'something else' },
      /new_turn must equal the last user turn/,
    ],
    ['neither user_query nor messages', { ...base }, /either user_query or messages is required/],
    ['fewer than 2 agents', { ...base, user_query: 'x', agent_names: ['Solo'] }, /^fewer than 2 agents$/],
    [
      'a role other than user and assistant',
      { ...base, messages: [{ role: 'user_injection', content: 'x' }, ...thread] },
      /unsupported role 'user_injection' \(use user or assistant\)/,
    ],
    [
      'the role noosphera',
      { ...base, messages: [...thread, { role: 'noosphera', content: 'x' }] },
      /unsupported role 'noosphera'/,
    ],
    [
      'zero deliberation_rounds',
      { ...base, user_query: 'x', deliberation_rounds: 0 },
      /deliberation_rounds must be a whole number from 1 to 50/,
    ],
    [
      'neither agent_names nor policy_id',
      { room_id: 'r9', user_query: 'x', deliberation_rounds: 2 },
      /either agent_names or policy_id is required/,
    ],
    ['no room_id', { user_query: 'x', agent_names: ['A', 'B'] }, /room_id is required/],
    ['effort outside [0, 1]', { ...base, user_query: 'x', effort: 1.5 }, /effort must be a number between 0 and 1/],
    [
      'a space and a dot in room_id',
      { ...base, user_query: 'x', room_id: 'room 1.a' },
      /room_id 'room 1\.a' contains forbidden characters: space, '\.'/,
    ],
    [
      'NUL, tab and newline in room_id',
      { ...base, user_query: 'x', room_id: 'a\u0000b\tc\nd' },
      /forbidden characters: NUL, tab, newline/,
    ],
    [
      '*, > and / in room_id',
      { ...base, user_query: 'x', room_id: 'a*b>c/d' },
      /forbidden characters: '\*', '>', '\/'/,
    ],
    [
      'an escape character in room_id',
      { ...base, user_query: 'x', room_id: 'a\u001bb' },
      /forbidden characters: U\+001B/,
    ],
    [
      'a forbidden character in an agent name',
      { ...base, user_query: 'x', agent_names: ['ok', 'bad.name'] },
      /agent name 'bad\.name' contains forbidden characters: '\.'/,
    ],
  ])('refuses %s with 400 {"error": ...}', async (_name, body, message) => {
    const s = await sim();
    const res = await post(`${s.url}/deliberation`, body);
    expect(res.status).toBe(400);
    const parsed = (await res.json()) as { error: string };
    expect(typeof parsed.error).toBe('string');
    expect(parsed.error).toMatch(message);
    expect(((await getJson(`${s.url}/deliberations`)).body as { jobs: unknown[] }).jobs).toEqual([]);
  });

  it('refuses a body that is not JSON with 400', async () => {
    const s = await sim();
    const res = await post(`${s.url}/deliberation`, '{nope');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/not valid JSON/);
  });

  it('accepts new_turn equal to the last user turn, and a missing conversation_id', async () => {
    const s = await sim();
    const res = await post(`${s.url}/deliberation`, {
      room_id: 'r2',
      messages: thread,
      new_turn: 'yo what about forests?',
      agent_names: ['A', 'B'],
    });
    expect(res.status).toBe(202);
  });

  it('answers 409 for a room whose job is live, and lets the room be reused once it ends', async () => {
    const s = await sim({ hold: true });
    const body = { ...base, user_query: 'Pick a queue' };
    expect((await post(`${s.url}/deliberation`, body)).status).toBe(202);
    const again = await post(`${s.url}/deliberation`, body);
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ error: 'job already running' });
    await finished(s, base.room_id);
    expect((await post(`${s.url}/deliberation`, body)).status).toBe(202);
  });
});

describe('inject and cancel', () => {
  it('acknowledges injections with increasing sequence numbers and the round they land in', async () => {
    const s = await sim({ hold: true });
    await post(`${s.url}/deliberation`, { ...base, user_query: 'Design a distributed cache', deliberation_rounds: 3 });
    const first = await post(`${s.url}/deliberation/${base.room_id}/inject`, {
      message: 'Focus on memory safety',
      priority: 'urgent',
    });
    expect(first.status).toBe(202);
    const ack = (await first.json()) as { sequence: number; injected_at_round: number };
    expect(ack).toEqual({ sequence: 1, injected_at_round: 1 });
    const second = (await (
      await post(`${s.url}/deliberation/${base.room_id}/inject`, { message: 'Keep it cheap' })
    ).json()) as { sequence: number };
    expect(second.sequence).toBe(2);
    s.control.release(base.room_id);
    const r = await readSse(await post(`${s.url}/deliberation/${base.room_id}/resume`, ''));
    const injected = r.chunks.flatMap((c) =>
      c.choices[0]?.delta.nsed_injected ? [c.choices[0].delta.nsed_injected] : [],
    );
    expect(injected).toEqual([
      { message: 'Focus on memory safety', round: 1, sequence: 1 },
      { message: 'Keep it cheap', round: 1, sequence: 2 },
    ]);
    const result = (await getJson(`${s.url}/deliberation/${base.room_id}/result`)).body as { result: string };
    expect(result.result).toContain('Focus on memory safety');
  });

  it('answers inject with 409 job not in running state after the end, 404 for an unknown id, 400 without a message', async () => {
    const s = await sim();
    await post(`${s.url}/deliberation`, { ...base, user_query: 'q' });
    expect((await post(`${s.url}/deliberation/${base.room_id}/inject`, {})).status).toBe(400);
    await finished(s, base.room_id);
    const late = await post(`${s.url}/deliberation/${base.room_id}/inject`, { message: 'too late' });
    expect(late.status).toBe(409);
    expect(await late.text()).toBe('job not in running state');
    expect((await post(`${s.url}/deliberation/nope/inject`, { message: 'x' })).status).toBe(404);
  });

  it('cancels a running job: open streams end with finish_reason cancelled and [DONE], /result says failed: cancelled', async () => {
    const s = await sim({ hold: true });
    await post(`${s.url}/deliberation`, { ...base, user_query: 'Design a distributed cache' });
    s.control.release(base.room_id, 1);
    await s.control.parked(base.room_id);
    const stream = readSse(await post(`${s.url}/deliberation/${base.room_id}/resume`, ''));
    const res = await post(`${s.url}/deliberation/${base.room_id}/cancel`, '');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ cancelled: true });
    const r = await stream;
    expect(r.data[r.data.length - 1]).toBe('[DONE]');
    expect(r.chunks[r.chunks.length - 1]?.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'cancelled' });
    expect((await getJson(`${s.url}/deliberation/${base.room_id}/result`)).body).toEqual({
      job_id: base.room_id,
      status: 'failed: cancelled',
      result: null,
    });
    const again = await post(`${s.url}/deliberation/${base.room_id}/cancel`, '');
    expect(again.status).toBe(409);
    expect((await post(`${s.url}/deliberation/unknown/cancel`, '')).status).toBe(404);
  });

  it('answers a compat non-streaming request on a cancelled job with finish_reason cancelled', async () => {
    const s = await sim({ hold: true });
    const pending = post(
      `${s.url}/v1/chat/completions`,
      { model: 'nsed:*', messages: [{ role: 'user', content: 'slow one' }] },
      { 'x-opencode-session': 'c1' },
    );
    const id = await s.control.nextJob();
    const jobs = ((await getJson(`${s.url}/deliberations`)).body as { jobs: Array<{ job_id: string }> }).jobs;
    expect(jobs.map((j) => j.job_id)).toEqual([id]);
    await post(`${s.url}/deliberation/${id}/cancel`, '');
    const body = (await (await pending).json()) as {
      choices: Array<{ finish_reason: string; message: { content: string | null } }>;
    };
    expect(body.choices[0]?.finish_reason).toBe('cancelled');
    expect(body.choices[0]?.message.content).toBeNull();
  });
});

describe('listing and discovery', () => {
  it('lists jobs with their status on GET /deliberations', async () => {
    const s = await sim({ hold: true });
    await postSse(`${s.url}/v1/chat/completions`, {
      model: 'nsed:passthrough',
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    await post(`${s.url}/deliberation`, { ...base, user_query: 'q' });
    const { body } = await getJson(`${s.url}/deliberations`);
    const jobs = (body as { jobs: Array<{ job_id: string; status: string }> }).jobs;
    expect(jobs.map((j) => j.status)).toEqual(['completed', 'running']);
    expect(jobs[1]?.job_id).toBe(base.room_id);
  });

  it('serves /policies (with ?tag=), /v1/models, /agents and /health', async () => {
    const s = await sim();
    const policies = (await getJson(`${s.url}/policies`)).body as Array<{
      name: string;
      policy_id: string;
      tags: string[];
      max_rounds: number;
    }>;
    expect(policies.map((p) => p.name)).toEqual([
      'balanced',
      'fast',
      'deep',
      'moderated',
      'passthrough',
      'nsed:mid:0v1',
    ]);
    expect(policies[2]?.max_rounds).toBe(5);
    expect(((await getJson(`${s.url}/policies?tag=mid:0v1`)).body as unknown[]).length).toBe(1);
    const models = (await getJson(`${s.url}/v1/models`)).body as {
      object: string;
      data: Array<{ id: string; object: string }>;
    };
    expect(models.object).toBe('list');
    expect(models.data.map((m) => m.id)).toContain('nsed:*');
    expect(models.data.map((m) => m.id)).toContain('nsed:mid:0v1');
    const agents = (await getJson(`${s.url}/agents`)).body as Array<{ agent_id: string; is_online: boolean }>;
    expect(agents.map((a) => a.agent_id).slice(0, 3)).toEqual(['CortexA', 'CortexB', 'CortexC']);
    expect(agents.length).toBeGreaterThan(3);
    const health = (await getJson(`${s.url}/health`)).body as { status: string; timestamp: string };
    expect(health.status).toBe('healthy');
    expect(Number.isNaN(Date.parse(health.timestamp))).toBe(false);
  });

  it('answers 404 for unknown routes and wrong methods', async () => {
    const s = await sim();
    expect((await getJson(`${s.url}/nope`)).status).toBe(404);
    expect((await getJson(`${s.url}/v1/chat/completions`)).status).toBe(404);
    expect((await post(`${s.url}/deliberation/x/result`, '')).status).toBe(404);
    expect((await getJson(`${s.url}/deliberation/x/details`)).status).toBe(404);
    expect((await getJson(`${s.url}/deliberation/x/explode`)).status).toBe(404);
  });
});

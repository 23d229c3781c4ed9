import { describe, expect, it } from 'vitest';
import type { ChatCompletion, ChatCompletionChunk, PendingToolCall } from '../../src/protocol/wire.js';
import { contentOf, getJson, post, postSse, sim, until } from '../harness/sse.js';

const tools = [
  {
    type: 'function',
    function: {
      name: 'calculator',
      description: 'Evaluate math expressions',
      parameters: { type: 'object', properties: { expr: { type: 'string' } } },
    },
  },
];
const question = { role: 'user', content: 'Use the calculator to work out 2+2 for the budget' };
// Far beyond any test: a call here is answered by the test or the test fails on its own terms.
const HOLD = { toolWaitMs: 10 * 60_000 };

const deltasOf = (chunks: readonly ChatCompletionChunk[]) => chunks.map((c) => c.choices[0]?.delta ?? {});

describe('tool calls on the compat surface (protocol §10.1)', () => {
  it('blocks the calling agent: the answer ends with finish_reason tool_calls while the job keeps running', async () => {
    const s = await sim(HOLD);
    const r = await postSse(`${s.url}/v1/chat/completions`, {
      model: 'nsed:*',
      stream: true,
      tools,
      messages: [question],
    });
    expect(r.data[r.data.length - 1]).toBe('[DONE]');
    const last = r.chunks[r.chunks.length - 1]?.choices[0];
    expect(last?.finish_reason).toBe('tool_calls');
    const call = last?.delta.tool_calls?.[0];
    expect(call?.index).toBe(0);
    expect(call?.id).toMatch(/^call_[0-9a-f]+$/);
    expect(call?.function?.name).toBe('calculator');
    expect(JSON.parse(call?.function?.arguments ?? '')).toEqual({ expr: '2+2' });
    expect(contentOf(r.chunks)).toBe('');
    // The pending-call extension belongs to streams that follow the whole job, not to this answer.
    expect(deltasOf(r.chunks).some((d) => d.nsed_tool_call_pending)).toBe(false);
    const id = r.headers.get('x-nsed-session-id') ?? '';
    expect((await getJson(`${s.url}/deliberation/${id}/result`)).body).toEqual({
      job_id: id,
      status: 'running',
      result: null,
    });
    const pending = (await getJson(`${s.url}/deliberation/${id}/tool-calls?status=pending`)).body as {
      tool_calls: PendingToolCall[];
    };
    expect(pending.tool_calls).toEqual([
      expect.objectContaining({
        call_id: call?.id,
        job_id: id,
        tool_name: 'user_calculator',
        arguments: { expr: '2+2' },
        round: 1,
        status: 'Pending',
      }),
    ]);
  });

  it('feeds the follow-up tool message to the blocked agent, and the same job answers with the result', async () => {
    const s = await sim(HOLD);
    const thread = { 'x-opencode-session': 'tools-1' };
    const first = (await (
      await post(`${s.url}/v1/chat/completions`, { model: 'nsed:*', tools, messages: [question] }, thread)
    ).json()) as ChatCompletion;
    const choice = first.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    const call = choice?.message.tool_calls?.[0];
    expect(call?.function.name).toBe('calculator');
    const jobs = (await getJson(`${s.url}/deliberations`)).body as { jobs: Array<{ job_id: string; status: string }> };
    expect(jobs.jobs).toHaveLength(1);
    const jobId = jobs.jobs[0]?.job_id ?? '';
    expect(jobs.jobs[0]?.status).toBe('running');

    const follow = await postSse(
      `${s.url}/v1/chat/completions`,
      {
        model: 'nsed:*',
        stream: true,
        tools,
        messages: [
          question,
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: call?.id, content: '4' },
        ],
      },
      thread,
    );
    expect(follow.headers.get('x-nsed-session-id')).toBe(jobId);
    expect(follow.chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(follow.chunks.some((c) => c.choices[0]?.delta.tool_calls)).toBe(false);
    expect(follow.chunks[follow.chunks.length - 1]?.choices[0]?.finish_reason).toBe('stop');
    expect(contentOf(follow.chunks)).toContain('`calculator` returned “4”');
    expect(((await getJson(`${s.url}/deliberations`)).body as { jobs: unknown[] }).jobs).toHaveLength(1);
    const calls = (await getJson(`${s.url}/deliberation/${jobId}/tool-calls`)).body as {
      tool_calls: PendingToolCall[];
    };
    expect(calls.tool_calls).toEqual([expect.objectContaining({ status: 'Responded', result: '4' })]);
    expect(((await getJson(`${s.url}/deliberation/${jobId}/result`)).body as { status: string }).status).toBe(
      'completed',
    );
  });

  it('with dedup on, a repeated tool follow-up is answered by the same job from the same place', async () => {
    const s = await sim({ ...HOLD, dedup: true });
    const thread = { 'x-opencode-session': 'tools-dedup' };
    const asked = await post(`${s.url}/v1/chat/completions`, { model: 'nsed:*', tools, messages: [question] }, thread);
    const jobId = asked.headers.get('x-nsed-session-id') ?? '';
    const call = ((await asked.json()) as ChatCompletion).choices[0]?.message.tool_calls?.[0];
    const followUp = {
      model: 'nsed:*',
      tools,
      messages: [
        question,
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call?.id, content: '4' },
      ],
    };
    const first = await post(`${s.url}/v1/chat/completions`, followUp, thread);
    const again = await post(`${s.url}/v1/chat/completions`, followUp, thread);
    const [a, b] = [(await first.json()) as ChatCompletion, (await again.json()) as ChatCompletion];
    expect(a.choices[0]?.message.content).toContain('`calculator` returned “4”');
    expect(b.choices[0]?.message.content).toBe(a.choices[0]?.message.content);
    expect([first.headers.get('x-nsed-session-id'), again.headers.get('x-nsed-session-id')]).toEqual([jobId, jobId]);
    expect(((await getJson(`${s.url}/deliberations`)).body as { jobs: unknown[] }).jobs).toHaveLength(1);
  });

  it('shows a resumed stream the pending call and its answer as events, without ending at the call', async () => {
    const s = await sim(HOLD);
    const first = await postSse(`${s.url}/v1/chat/completions`, {
      model: 'nsed:*',
      stream: true,
      tools,
      messages: [question],
    });
    const id = first.headers.get('x-nsed-session-id') ?? '';
    const callId = first.chunks[first.chunks.length - 1]?.choices[0]?.delta.tool_calls?.[0]?.id ?? '';
    const answered = await post(`${s.url}/deliberation/${id}/tool-calls/${callId}`, { result: '4' });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual({ call_id: callId, status: 'responded' });
    const resumed = await postSse(`${s.url}/deliberation/${id}/resume`, {});
    const d = deltasOf(resumed.chunks);
    expect(d.find((x) => x.nsed_tool_call_pending)?.nsed_tool_call_pending).toEqual(
      expect.objectContaining({ call_id: callId, tool_name: 'user_calculator' }),
    );
    expect(d.find((x) => x.nsed_tool_call_responded)?.nsed_tool_call_responded).toEqual(
      expect.objectContaining({ call_id: callId, result: '4' }),
    );
    expect(resumed.chunks.some((c) => c.choices[0]?.finish_reason === 'tool_calls')).toBe(false);
    expect(contentOf(resumed.chunks)).toContain('`calculator` returned “4”');
  });

  it('answers normally when the offered tools are not named in the question', async () => {
    const s = await sim();
    const r = await postSse(`${s.url}/v1/chat/completions`, {
      model: 'nsed:fast',
      stream: true,
      tools,
      messages: [{ role: 'user', content: 'Design a cache' }],
    });
    expect(r.chunks[r.chunks.length - 1]?.choices[0]?.finish_reason).toBe('stop');
    expect(contentOf(r.chunks).length).toBeGreaterThan(100);
  });
});

describe('tool calls on the native surface (protocol §10.2)', () => {
  const submit = (url: string, content: string, room: string) =>
    post(`${url}/deliberation`, {
      room_id: room,
      messages: [{ role: 'user', content }],
      agent_names: ['A1', 'B2'],
      deliberation_rounds: 2,
      user_tools: [tools[0]?.function],
    });

  it('answers a pending call through the endpoint while the stream runs on, then refuses a second answer', async () => {
    const s = await sim(HOLD);
    expect((await submit(s.url, question.content, 'room-t1')).status).toBe(202);
    const res = await fetch(`${s.url}/deliberation/room-t1/resume`, { method: 'POST' });
    const reader = res.body?.getReader();
    let text = '';
    const dec = new TextDecoder();
    // Read until the pending event arrives, answer it, then read to the end of the same stream.
    while (!text.includes('nsed_tool_call_pending')) {
      const { value, done } = (await reader?.read()) ?? { done: true, value: undefined };
      if (done) throw new Error(`stream ended before the call: ${text}`);
      text += dec.decode(value, { stream: true });
    }
    const pending = (await getJson(`${s.url}/deliberation/room-t1/tool-calls?status=pending`)).body as {
      tool_calls: PendingToolCall[];
    };
    const callId = pending.tool_calls[0]?.call_id ?? '';
    expect(pending.tool_calls[0]?.tool_name).toBe('user_calculator');
    expect((await post(`${s.url}/deliberation/room-t1/tool-calls/${callId}`, { result: '4' })).status).toBe(200);
    for (;;) {
      const { value, done } = (await reader?.read()) ?? { done: true, value: undefined };
      if (done) break;
      text += dec.decode(value, { stream: true });
    }
    expect(text).toContain('nsed_tool_call_responded');
    expect(text).toContain('`calculator` returned “4”');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const again = await post(`${s.url}/deliberation/room-t1/tool-calls/${callId}`, { result: '5' });
    expect(again.status).toBe(409);
    expect((await post(`${s.url}/deliberation/room-t1/tool-calls/call_nope`, { result: '5' })).status).toBe(404);
    expect((await post(`${s.url}/deliberation/room-t1/tool-calls/${callId}`, { answer: 5 })).status).toBe(400);
  });

  it('expires an unanswered call, says so on the stream, and the council answers without it', async () => {
    const s = await sim({ toolWaitMs: 1 });
    expect((await submit(s.url, question.content, 'room-t2')).status).toBe(202);
    const r = await postSse(`${s.url}/deliberation/room-t2/resume`, {});
    const d = deltasOf(r.chunks);
    const callId = d.find((x) => x.nsed_tool_call_pending)?.nsed_tool_call_pending?.call_id;
    expect(d.find((x) => x.nsed_tool_call_expired)?.nsed_tool_call_expired).toEqual({ call_id: callId });
    expect(contentOf(r.chunks)).not.toContain('Tool result');
    expect(r.chunks[r.chunks.length - 1]?.choices[0]?.finish_reason).toBe('stop');
    const all = (await getJson(`${s.url}/deliberation/room-t2/tool-calls`)).body as { tool_calls: PendingToolCall[] };
    expect(all.tool_calls.map((c) => c.status)).toEqual(['Expired']);
  });

  it('calls ask_user with a question and options when the person asks to be asked', async () => {
    const s = await sim(HOLD);
    const askUser = {
      name: 'ask_user',
      parameters: { type: 'object', properties: { question: { type: 'string' }, options: { type: 'array' } } },
    };
    const r = await post(`${s.url}/deliberation`, {
      room_id: 'room-t3',
      messages: [{ role: 'user', content: 'Plan our database migration; ask me what matters' }],
      agent_names: ['A1', 'B2'],
      user_tools: [askUser],
    });
    expect(r.status).toBe(202);
    const list = async () =>
      (
        (await getJson(`${s.url}/deliberation/room-t3/tool-calls?status=pending`)).body as {
          tool_calls: PendingToolCall[];
        }
      ).tool_calls;
    await until(async () => (await list()).length === 1, 60_000);
    const [call] = await list();
    expect(call?.tool_name).toBe('user_ask_user');
    expect(call?.arguments).toEqual({
      question: expect.stringMatching(/^Which matters more for .+\?$/),
      options: [expect.any(String), expect.any(String)],
    });
  });
});

import { describe, expect, it } from 'vitest';
import type { ChatCompletion } from '../../src/protocol/wire.js';
import { contentOf, getJson, post, postSse, sim } from './helpers.js';

const tools = [
  { type: 'function', function: { name: 'calculator', description: 'Evaluate math expressions', parameters: { type: 'object', properties: { expr: { type: 'string' } } } } },
];
const question = { role: 'user', content: 'Use the calculator to work out 2+2 for the budget' };

describe('tool calls (protocol §10.1)', () => {
  it('calls a tool the question names after round 1, then ends the job with finish_reason tool_calls', async () => {
    const s = await sim();
    const r = await postSse(`${s.url}/v1/chat/completions`, { model: 'nsed:*', stream: true, tools, messages: [question] });
    expect(r.data[r.data.length - 1]).toBe('[DONE]');
    const last = r.chunks[r.chunks.length - 1]?.choices[0];
    expect(last?.finish_reason).toBe('tool_calls');
    const call = last?.delta.tool_calls?.[0];
    expect(call?.index).toBe(0);
    expect(call?.id).toMatch(/^call_[0-9a-f]+$/);
    expect(call?.type).toBe('function');
    expect(call?.function?.name).toBe('calculator');
    expect(JSON.parse(call?.function?.arguments ?? '')).toEqual({ expr: question.content });
    expect(contentOf(r.chunks)).toBe('');
    expect(r.chunks.filter((c) => c.choices[0]?.delta.nsed_round?.scored)).toHaveLength(1);
    const id = r.headers.get('x-nsed-session-id') ?? '';
    expect((await getJson(`${s.url}/deliberation/${id}/result`)).body).toEqual({ job_id: id, status: 'completed', result: null });
  });

  it('completes the deliberation in a fresh job when the follow-up carries the tool result, quoting it', async () => {
    const s = await sim();
    const thread = { 'x-opencode-session': 'tools-1' };
    const first = (await (await post(`${s.url}/v1/chat/completions`, { model: 'nsed:*', tools, messages: [question] }, thread)).json()) as ChatCompletion;
    const choice = first.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    const call = choice?.message.tool_calls?.[0];
    expect(call?.function.name).toBe('calculator');
    const follow = await postSse(
      `${s.url}/v1/chat/completions`,
      {
        model: 'nsed:*',
        stream: true,
        tools,
        messages: [question, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call?.id, content: '4' }],
      },
      thread,
    );
    expect(follow.chunks.some((c) => c.choices[0]?.delta.tool_calls)).toBe(false);
    expect(follow.chunks[follow.chunks.length - 1]?.choices[0]?.finish_reason).toBe('stop');
    const answer = contentOf(follow.chunks);
    expect(answer).toContain('`calculator` returned “4”');
    expect(s.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(2);
    const details = (await getJson(`${s.url}/deliberation/${follow.headers.get('x-nsed-session-id') ?? ''}/details`)).body as { query: string };
    expect(details.query).toBe(`${'[user] '}${question.content}\n\n[tool] 4`);
  });

  it('answers normally when the offered tools are not named in the question', async () => {
    const s = await sim();
    const r = await postSse(`${s.url}/v1/chat/completions`, { model: 'nsed:fast', stream: true, tools, messages: [{ role: 'user', content: 'Design a cache' }] });
    expect(r.chunks[r.chunks.length - 1]?.choices[0]?.finish_reason).toBe('stop');
    expect(contentOf(r.chunks).length).toBeGreaterThan(100);
  });
});

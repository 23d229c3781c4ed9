import OpenAI, { BadRequestError, NotFoundError } from 'openai';
import { describe, expect, it } from 'vitest';
import { post, sim } from '../harness/sse.js';

const TOKEN = 'responses-token';
const clientOf = (url: string): OpenAI => new OpenAI({ baseURL: `${url}/v1`, apiKey: TOKEN, maxRetries: 0 });

const weather = {
  type: 'function' as const,
  name: 'weather',
  description: 'Current weather for a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  strict: true,
};

describe('POST /v1/responses with the official openai package (responses.create)', () => {
  it('answers without streaming: a reasoning item with the deliberation progress, then the message', async () => {
    const s = await sim({ token: TOKEN, seed: 3 });
    const r = await clientOf(s.url).responses.create({ model: 'nsed:fast', input: 'Design a distributed cache' });
    expect(r.object).toBe('response');
    expect(r.status).toBe('completed');
    expect(r.model).toBe('nsed:fast');
    expect(r.output_text).toMatch(/^## Design a distributed cache/);
    const [reasoning, message] = r.output;
    expect(reasoning?.type).toBe('reasoning');
    const summary = reasoning?.type === 'reasoning' ? reasoning.summary.map((p) => p.text) : [];
    expect(summary.some((t) => /^Round 1 complete — convergence: \d+%$/.test(t))).toBe(true);
    expect(message?.type).toBe('message');
    expect(r.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('streams the Responses event sequence, and the streamed text equals the blocking answer', async () => {
    const s = await sim({ token: TOKEN, seed: 3 });
    const client = clientOf(s.url);
    const stream = await client.responses.create({
      model: 'nsed:fast',
      input: 'Design a distributed cache',
      stream: true,
    });
    const types: string[] = [];
    let text = '';
    let reasoning = '';
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.reasoning_summary_text.delta') reasoning += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toContain('response.output_item.added');
    expect(reasoning).toMatch(/Round 1\/1 — proposals from/);
    expect(completed?.output_text ?? text).toBe(text);
    const blocking = await client.responses.create({ model: 'nsed:fast', input: 'Design a distributed cache' });
    expect(text).toBe(blocking.output_text);
  });

  it('continues a server-held thread with previous_response_id; the council sees the earlier turn', async () => {
    const s = await sim({ token: TOKEN });
    const client = clientOf(s.url);
    const first = await client.responses.create({
      model: 'nsed:fast',
      input: 'What is the sound of one hand clapping?',
    });
    const second = await client.responses.create({
      model: 'nsed:fast',
      input: 'yo what about forests?',
      previous_response_id: first.id,
    });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.output_text).toContain(
      'This builds on the earlier question (“What is the sound of one hand clapping?”)',
    );
  });

  it('refuses a changed model on a thread (parameter-locked) and an unknown previous_response_id', async () => {
    const s = await sim({ token: TOKEN });
    const client = clientOf(s.url);
    const first = await client.responses.create({ model: 'nsed:fast', input: 'Pick a queue' });
    await expect(
      client.responses.create({ model: 'nsed:deep', input: 'again', previous_response_id: first.id }),
    ).rejects.toThrow(BadRequestError);
    await expect(
      client.responses.create({ model: 'nsed:deep', input: 'again', previous_response_id: first.id }),
    ).rejects.toThrow(/locked to model 'nsed:fast'/);
    await expect(
      client.responses.create({ model: 'nsed:fast', input: 'again', previous_response_id: 'resp_nope' }),
    ).rejects.toThrow(NotFoundError);
    await expect(client.responses.create({ model: 'gpt-4o', input: 'hi' })).rejects.toThrow(NotFoundError);
  });

  it('round-trips a function tool: a function_call item, then function_call_output on the thread', async () => {
    const s = await sim({ token: TOKEN });
    const client = clientOf(s.url);
    const asked = await client.responses.create({
      model: 'nsed:fast',
      input: 'Use the weather tool for Paris, then advise on a coat',
      tools: [weather],
    });
    const call = asked.output.find((i) => i.type === 'function_call');
    expect(call?.type === 'function_call' ? call.name : undefined).toBe('weather');
    const callId = call?.type === 'function_call' ? call.call_id : '';
    expect(JSON.parse(call?.type === 'function_call' ? call.arguments : '{}')).toHaveProperty('city');
    const answered = await client.responses.create({
      model: 'nsed:fast',
      previous_response_id: asked.id,
      input: [{ type: 'function_call_output', call_id: callId, output: '12°C and raining' }],
      tools: [weather],
    });
    expect(answered.output.some((i) => i.type === 'function_call')).toBe(false);
    expect(answered.output_text).toContain('12°C and raining');
  });

  it('refuses input that is neither a string nor a list of items with an OpenAI-shaped 400', async () => {
    const s = await sim();
    const res = await post(`${s.url}/v1/responses`, { model: 'nsed:fast', input: 42 });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: expect.objectContaining({ type: 'invalid_request_error', param: 'input' }),
    });
  });

  it('ends a failed deliberation with response.failed when streaming, and a 500 when not', async () => {
    const s = await sim({ token: TOKEN, faults: ['chat:fail-at-round=1'] });
    const client = clientOf(s.url);
    const stream = await client.responses.create({ model: 'nsed:fast', input: 'Design a cache', stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types.at(-1)).toBe('response.failed');
    await expect(client.responses.create({ model: 'nsed:fast', input: 'Design a cache' })).rejects.toThrow(
      /deliberation failed/,
    );
  });
});

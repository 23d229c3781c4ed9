import OpenAI, { NotFoundError } from 'openai';
import { describe, expect, it } from 'vitest';
import { sim } from '../harness/sse.js';

const TOKEN = 'sdk-token';

describe('conformance with the official openai package', () => {
  it('streams chunks the SDK can iterate and gets the same answer as a non-streaming call', async () => {
    const s = await sim({ token: TOKEN, seed: 11 });
    const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: 'Design a distributed cache' }];
    const stream = await client.chat.completions.create({ model: 'nsed:fast', messages, stream: true });
    let streamed = '';
    let finish: string | null | undefined;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks += 1;
      streamed += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(chunks).toBeGreaterThan(5);
    expect(finish).toBe('stop');
    expect(streamed).toMatch(/^## Design a distributed cache/);

    const full = await client.chat.completions.create({ model: 'nsed:fast', messages });
    expect(full.object).toBe('chat.completion');
    expect(full.choices[0]?.message.content).toBe(streamed);
    expect(full.choices[0]?.finish_reason).toBe('stop');
  });

  it('surfaces an unknown model as the SDK NotFoundError', async () => {
    const s = await sim({ token: TOKEN });
    const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
    const err = await client.chat.completions
      .create({ model: 'nsed:nope', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).message).toMatch(/model 'nsed:nope' not found/);
    expect((err as NotFoundError).code).toBe('model_not_found');
  });

  it('lists the models through the SDK', async () => {
    const s = await sim({ token: TOKEN });
    const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toContain('nsed:deep');
  });

  it('raises the in-stream error of a failed deliberation (reliability #19)', async () => {
    const s = await sim({ token: TOKEN });
    const client = new OpenAI({
      baseURL: `${s.url}/v1`,
      apiKey: TOKEN,
      maxRetries: 0,
      defaultHeaders: { 'x-nsed-sim-fault': 'fail-at-round=1' },
    });
    const stream = await client.chat.completions.create({
      model: 'nsed:fast',
      messages: [{ role: 'user', content: 'q' }],
      stream: true,
    });
    const consume = async () => {
      for await (const _chunk of stream) {
        // draining until the error chunk
      }
    };
    await expect(consume()).rejects.toThrow(/deliberation failed/);
  });

  it('completes a tool round trip: the SDK gets tool_calls, sends the tool message, and the same job answers with it', async () => {
    const s = await sim({ token: TOKEN, toolWaitMs: 10 * 60_000 });
    const client = new OpenAI({
      baseURL: `${s.url}/v1`,
      apiKey: TOKEN,
      maxRetries: 0,
      defaultHeaders: { 'x-opencode-session': 'sdk-tools' },
    });
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'calculator', parameters: { type: 'object', properties: { expr: { type: 'string' } } } },
      },
    ];
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Use the calculator to compute 2+2' },
    ];
    const first = await client.chat.completions.create({ model: 'nsed:fast', messages, tools });
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    const call = first.choices[0]?.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(JSON.parse(call.function.arguments)).toEqual({ expr: '2+2' });
    messages.push(first.choices[0]?.message as OpenAI.Chat.ChatCompletionMessageParam, {
      role: 'tool',
      tool_call_id: call.id,
      content: '4',
    });
    const stream = await client.chat.completions.create({ model: 'nsed:fast', messages, tools, stream: true });
    let answer = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      answer += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe('stop');
    expect(answer).toContain('`calculator` returned “4”');
    expect(s.requests.filter((r) => r.path === '/deliberation').length).toBe(0);
    expect(
      new Set(s.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.headers['x-opencode-session']))
        .size,
    ).toBe(1);
  });
});

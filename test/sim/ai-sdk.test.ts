import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { sim } from '../harness/sse.js';

// The Vercel AI SDK's default provider speaks the Responses API (POST /v1/responses).
describe('conformance with the Vercel AI SDK default provider', () => {
  it('runs the seed chat-completions example as printed: createOpenAI({ baseURL, apiKey }) then nsed(model)', async () => {
    const s = await sim({ token: 'your-token' });
    // As printed in the seed, with the simulator's address for localhost:8080.
    const nsed = createOpenAI({
      baseURL: `${s.url}/v1`,
      apiKey: 'your-token',
    });
    const { text } = await generateText({ model: nsed('nsed:*'), prompt: 'What is 2 + 2?' });
    expect(text).toMatch(/^## What is 2 \+ 2\?/);
    expect(s.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/responses']);
  });

  it('generateText returns the answer and the deliberation progress as reasoning', async () => {
    const s = await sim({ seed: 5 });
    const nsed = createOpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x' });
    const r = await generateText({ model: nsed('nsed:fast'), prompt: 'Design a distributed cache' });
    expect(r.text).toMatch(/^## Design a distributed cache/);
    expect(r.finishReason).toBe('stop');
    expect(r.reasoningText ?? '').toMatch(/Round 1 complete — convergence: \d+%/);
    expect(r.usage.totalTokens).toBeGreaterThan(0);
  });

  it('streamText streams the same answer, reasoning first', async () => {
    const s = await sim({ seed: 5 });
    const nsed = createOpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x' });
    const blocking = await generateText({ model: nsed('nsed:fast'), prompt: 'Design a distributed cache' });
    const result = streamText({ model: nsed('nsed:fast'), prompt: 'Design a distributed cache' });
    const kinds: string[] = [];
    let text = '';
    for await (const part of result.fullStream) {
      if (part.type === 'error') throw part.error instanceof Error ? part.error : new Error(JSON.stringify(part.error));
      kinds.push(part.type);
      if (part.type === 'text-delta') text += part.text;
    }
    expect(text).toBe(blocking.text);
    expect(kinds.indexOf('reasoning-delta')).toBeGreaterThan(-1);
    expect(kinds.indexOf('reasoning-delta')).toBeLessThan(kinds.indexOf('text-delta'));
    expect(await result.finishReason).toBe('stop');
  });

  it('round-trips a tool: the council calls it, the SDK runs it, the answer uses its result', async () => {
    const s = await sim();
    const nsed = createOpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x' });
    const calls: unknown[] = [];
    const r = await generateText({
      model: nsed('nsed:fast'),
      prompt: 'Use the weather tool for Paris, then advise on a coat',
      tools: {
        weather: tool({
          description: 'Current weather for a city',
          inputSchema: jsonSchema<{ city: string }>({
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
            additionalProperties: false,
          }),
          execute: async (input) => {
            calls.push(input);
            return '12°C and raining';
          },
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toHaveProperty('city');
    expect(r.steps).toHaveLength(2);
    expect(r.steps[0]?.finishReason).toBe('tool-calls');
    expect(r.text).toContain('12°C and raining');
  });
});

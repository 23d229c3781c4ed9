import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import type { PendingToolCall } from '../../src/protocol/wire.js';
import type { SimServer } from '../../src/sim/server.js';
import { getJson, sim } from '../harness/sse.js';

/** The SDK sends `reasoning` only for models it knows reason, unless forced. */
const ASK_REASONING = { openai: { forceReasoning: true, reasoningSummary: 'auto' } };

// Far beyond any test: the call is answered by the SDK, never left to expire.
const HOLD = { toolWaitMs: 10 * 60_000 };

const weatherTool = (calls: unknown[]) =>
  tool({
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
  });

/**
 * The SDK's two requests were answered by one job: the only one started, its call answered with
 * the tool's result and its deliberation done. The SDK sends no previous_response_id (it re-sends
 * the thread, the call as a function_call item), so this also proves the call is found by its id.
 */
async function expectOneJobAnswered(s: SimServer): Promise<void> {
  expect(s.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/responses', 'POST /v1/responses']);
  const jobs = s.control.jobs().map((j) => j.jobId);
  expect(jobs).toHaveLength(1);
  const id = jobs[0] ?? '';
  const calls = (await getJson(`${s.url}/deliberation/${id}/tool-calls`)).body as { tool_calls: PendingToolCall[] };
  expect(calls.tool_calls).toEqual([expect.objectContaining({ status: 'Responded' })]);
  expect(calls.tool_calls[0]?.result).toContain('12°C and raining');
  expect(((await getJson(`${s.url}/deliberation/${id}/result`)).body as { status: string }).status).toBe('completed');
}

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

  it('generateText returns the answer, and the deliberation progress as reasoning when it asks for reasoning', async () => {
    const s = await sim({ seed: 5 });
    const nsed = createOpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x' });
    const plain = await generateText({ model: nsed('nsed:fast'), prompt: 'Design a distributed cache' });
    // No reasoning asked, none given (clients would print "Reasoning: …" before every answer).
    expect(plain.reasoningText).toBeUndefined();
    const r = await generateText({
      model: nsed('nsed:fast'),
      prompt: 'Design a distributed cache',
      providerOptions: ASK_REASONING,
    });
    expect(r.text).toBe(plain.text);
    expect(r.text).toMatch(/^## Design a distributed cache/);
    expect(r.finishReason).toBe('stop');
    expect(r.reasoningText ?? '').toMatch(/Round 1 complete — convergence: \d+%/);
    expect(r.usage.totalTokens).toBeGreaterThan(0);
  });

  it('streamText streams the same answer, reasoning first', async () => {
    const s = await sim({ seed: 5 });
    const nsed = createOpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x' });
    const blocking = await generateText({ model: nsed('nsed:fast'), prompt: 'Design a distributed cache' });
    const result = streamText({
      model: nsed('nsed:fast'),
      prompt: 'Design a distributed cache',
      providerOptions: ASK_REASONING,
    });
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

  it('round-trips a tool: the council calls it, the SDK runs it, the same job answers with its result', async () => {
    const s = await sim(HOLD);
    const nsed = createOpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x' });
    const calls: unknown[] = [];
    const r = await generateText({
      model: nsed('nsed:fast'),
      prompt: 'Use the weather tool for Paris, then advise on a coat',
      tools: { weather: weatherTool(calls) },
      stopWhen: stepCountIs(3),
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toHaveProperty('city');
    expect(r.steps).toHaveLength(2);
    expect(r.steps[0]?.finishReason).toBe('tool-calls');
    expect(r.text).toContain('12°C and raining');
    await expectOneJobAnswered(s);
  });

  it('streamText round-trips a tool on one job too', async () => {
    const s = await sim(HOLD);
    const nsed = createOpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x' });
    const calls: unknown[] = [];
    const result = streamText({
      model: nsed('nsed:fast'),
      prompt: 'Use the weather tool for Paris, then advise on a coat',
      tools: { weather: weatherTool(calls) },
      stopWhen: stepCountIs(3),
    });
    const kinds: string[] = [];
    for await (const part of result.fullStream) {
      if (part.type === 'error') throw part.error instanceof Error ? part.error : new Error(JSON.stringify(part.error));
      kinds.push(part.type);
    }
    expect(calls).toHaveLength(1);
    expect(kinds.indexOf('tool-call')).toBeGreaterThan(-1);
    expect(kinds.indexOf('tool-result')).toBeLessThan(kinds.lastIndexOf('text-delta'));
    const steps = await result.steps;
    expect(steps.map((st) => st.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(await result.text).toContain('12°C and raining');
    await expectOneJobAnswered(s);
  });
});

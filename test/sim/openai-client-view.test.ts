import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { ProfileName } from '../../src/sim/profile.js';
import { post, sim } from '../harness/sse.js';
import { schemaErrors } from './validator.js';

// Far beyond any test: a call here is answered by the test, or left pending when the test ends.
const HOLD = { toolWaitMs: 10 * 60_000 };

/** codex's shell tool as codex declares it on the Responses API (its published tool definition). */
const CODEX_SHELL = JSON.parse(readFileSync(new URL('./fixtures/codex-shell-tool.json', import.meta.url), 'utf8')) as {
  name: string;
  parameters: Record<string, unknown>;
};

/** What LangChain's `withStructuredOutput(method: "functionCalling")` offers: one function, forced. */
const EXTRACT = {
  type: 'function',
  function: {
    name: 'extract',
    description: 'Extract the decision',
    parameters: {
      type: 'object',
      properties: { decision: { type: 'string' }, confidence: { type: 'number', minimum: 0, maximum: 1 } },
      required: ['decision', 'confidence'],
      additionalProperties: false,
    },
  },
};

interface Completion {
  choices: Array<{
    finish_reason: string;
    logprobs: unknown;
    message: {
      content: string | null;
      refusal: unknown;
      tool_calls?: Array<{ function: { name: string; arguments: string } }>;
    };
  }>;
}

async function chat(url: string, body: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
  const res = await post(`${url}/v1/chat/completions`, {
    model: 'nsed:fast',
    messages: [{ role: 'user', content: 'Should we cache the session store?' }],
    ...body,
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

describe.each<ProfileName>(['default', 'strict'])('tool_choice is honoured (profile %s)', (profile) => {
  it('a forced function is called, with arguments that fit its schema, though the question names no tool', async () => {
    const s = await sim({ ...HOLD, profile });
    const r = await chat(s.url, {
      tools: [EXTRACT],
      tool_choice: { type: 'function', function: { name: 'extract' } },
    });
    const choice = (r.body as Completion).choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    const call = choice?.message.tool_calls?.[0];
    expect(call?.function.name).toBe('extract');
    expect(schemaErrors(EXTRACT.function.parameters, JSON.parse(call?.function.arguments ?? 'null'))).toEqual([]);
  });

  it('"required" calls a tool; "none" answers in prose even when the question names the tool', async () => {
    const s = await sim({ ...HOLD, profile });
    const required = await chat(s.url, { tools: [EXTRACT], tool_choice: 'required' });
    expect((required.body as Completion).choices[0]?.message.tool_calls?.[0]?.function.name).toBe('extract');
    const none = await chat(s.url, {
      messages: [{ role: 'user', content: 'Use extract on this: cache the session store' }],
      tools: [EXTRACT],
      tool_choice: 'none',
    });
    const choice = (none.body as Completion).choices[0];
    expect(choice?.finish_reason).toBe('stop');
    expect(choice?.message.tool_calls).toBeUndefined();
    expect(choice?.message.content).not.toBe('');
  });

  it('the Responses API honours a forced function ({"type": "function", "name"}) and "none"', async () => {
    const s = await sim({ ...HOLD, profile });
    const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const tool = { type: 'function' as const, strict: false, ...EXTRACT.function };
    const forced = await client.responses.create({
      model: 'nsed:fast',
      input: 'Should we cache the session store?',
      tools: [tool],
      tool_choice: { type: 'function', name: 'extract' },
    });
    const call = forced.output.find((i) => i.type === 'function_call');
    expect(call?.type === 'function_call' ? call.name : undefined).toBe('extract');
    const none = await client.responses.create({
      model: 'nsed:fast',
      input: 'Use extract on this: cache the session store',
      tools: [tool],
      tool_choice: 'none',
    });
    expect(none.output.some((i) => i.type === 'function_call')).toBe(false);
    expect(none.output_text).not.toBe('');
  });
});

describe('codex shell tool arguments', () => {
  const SEEDS = [0, 1, 2, 3, 4, 5, 6, 7, 8];

  async function shellCall(seed: number, question: string): Promise<Record<string, unknown>> {
    const s = await sim({ ...HOLD, seed });
    const res = await post(`${s.url}/v1/responses`, {
      model: 'nsed:fast',
      instructions: 'You are a coding agent running in the Codex CLI.',
      input: question,
      tools: [CODEX_SHELL],
      tool_choice: 'auto',
      store: false,
    });
    const body = (await res.json()) as { output: Array<Record<string, unknown>> };
    const call = body.output.find((i) => i.type === 'function_call');
    expect(call?.name).toBe('shell');
    return JSON.parse(String(call?.arguments)) as Record<string, unknown>;
  }

  it.each(SEEDS)(
    "seed %i: the call validates, runs the question's command, and asks for no escalation",
    async (seed) => {
      const args = await shellCall(seed, 'Use the shell tool. run: ls -la');
      expect(schemaErrors(CODEX_SHELL.parameters, args)).toEqual([]);
      // Optional fields nobody asked for stay out: no escalation, so no justification either.
      expect(args).toEqual({ command: ['ls', '-la'] });
    },
  );

  it('a command that needs a shell goes to bash -lc; one in backticks is taken as written', async () => {
    const piped = await shellCall(3, 'With shell, run: git log --oneline | head -5');
    expect(piped).toEqual({ command: ['bash', '-lc', 'git log --oneline | head -5'] });
    const ticked = await shellCall(4, 'Call shell with `npm test` please');
    expect(ticked).toEqual({ command: ['npm', 'test'] });
  });

  it('an optional field is filled when the question names it', async () => {
    const args = await shellCall(5, 'Use shell with a timeout of 5000 ms. run: make check');
    expect(schemaErrors(CODEX_SHELL.parameters, args)).toEqual([]);
    expect(args).toEqual({ command: ['make', 'check'], timeout_ms: 5000 });
  });
});

describe('requests an OpenAI-compatible server refuses', () => {
  it.each([
    ['content an object', { messages: [{ role: 'user', content: { text: 'hi' } }] }, 'messages[0].content'],
    ['stream a string', { stream: 'yes' }, 'stream'],
    ['tools a string', { tools: 'nope' }, 'tools'],
    ['temperature a string', { temperature: 'hot' }, 'temperature'],
    [
      'a tool message without tool_call_id',
      {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'tool', content: '42' },
        ],
      },
      'messages[1].tool_call_id',
    ],
    [
      'tool_choice naming a function not offered',
      { tools: [EXTRACT], tool_choice: { type: 'function', function: { name: 'nope' } } },
      'tool_choice',
    ],
    ['tool_choice "required" with no tools', { tool_choice: 'required' }, 'tool_choice'],
  ])("%s: 400 with OpenAI's error body, param named", async (_what, body, param) => {
    const s = await sim();
    const r = await chat(s.url, body);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      error: { message: expect.any(String) as string, type: 'invalid_request_error', param, code: 'invalid_request' },
    });
    // Nothing was started for a refused request.
    expect((await (await fetch(`${s.url}/deliberations`)).json()) as unknown).toEqual({ jobs: [] });
  });

  it('the Responses API refuses wrong types too (stream, tools, input)', async () => {
    const s = await sim();
    for (const [field, value] of [
      ['stream', 'yes'],
      ['tools', 'nope'],
      ['input', { text: 'hi' }],
    ] as const) {
      const res = await post(`${s.url}/v1/responses`, { model: 'nsed:fast', input: 'hi', [field]: value });
      expect(res.status, field).toBe(400);
      expect(((await res.json()) as { error: { param: string } }).error.param).toBe(field);
    }
  });

  it('GET // and other odd paths answer 404, never 500', async () => {
    const s = await sim();
    for (const path of ['//', '//v1/models', '/%', '///deliberations']) {
      const res = await fetch(`${s.url}${path}`);
      expect(res.status, path).toBe(404);
    }
  });
});

describe('shapes as OpenAI publishes them', () => {
  it('chat.completion carries message.refusal and choice.logprobs as null; errors carry param', async () => {
    const s = await sim();
    const ok = await chat(s.url, {});
    const choice = (ok.body as Completion).choices[0];
    expect(choice?.logprobs).toBeNull();
    expect(choice?.message.refusal).toBeNull();
    const missing = await chat(s.url, { model: 'nsed:no-such-policy' });
    expect(missing.status).toBe(404);
    expect((missing.body as { error: Record<string, unknown> }).error).toMatchObject({
      param: 'model',
      code: 'model_not_found',
    });
    const fault = await post(
      `${s.url}/v1/chat/completions`,
      { model: 'nsed:fast', messages: [{ role: 'user', content: 'hi' }] },
      { 'x-nsed-sim-fault': 'status=503' },
    );
    expect(((await fault.json()) as { error: Record<string, unknown> }).error).toHaveProperty('param', null);
  });

  it('Responses: function_call_arguments.done names the function; output_text parts carry logprobs', async () => {
    const s = await sim(HOLD);
    const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const events: Array<Record<string, unknown>> = [];
    const stream = await client.responses.create({
      model: 'nsed:fast',
      input: 'Use the shell tool. run: ls',
      tools: [CODEX_SHELL as unknown as OpenAI.Responses.FunctionTool],
      stream: true,
    });
    for await (const e of stream) events.push(e as unknown as Record<string, unknown>);
    const done = events.find((e) => e.type === 'response.function_call_arguments.done');
    expect(done).toMatchObject({ name: 'shell' });

    const text = await client.responses.create({ model: 'nsed:fast', input: 'Pick a queue', stream: true });
    const parts: unknown[] = [];
    for await (const e of text)
      if (e.type === 'response.content_part.added' || e.type === 'response.content_part.done') parts.push(e.part);
    expect(parts).toHaveLength(2);
    for (const p of parts) expect(p).toMatchObject({ type: 'output_text', annotations: [], logprobs: [] });
  });
});

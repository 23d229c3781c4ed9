import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { ChatCompletion } from '../../src/protocol/wire.js';
import { post, sim } from '../harness/sse.js';
import { schemaErrors } from './validator.js';

// Far beyond any test: a call here is answered by the test, or left pending when the test ends.
const HOLD = { toolWaitMs: 10 * 60_000 };

/** codex's shell tool as `codex exec` declares it on the Responses API (flat function tool). */
const CODEX_SHELL = {
  type: 'function',
  name: 'shell',
  description: 'Runs a shell command and returns its output.',
  strict: false,
  parameters: {
    type: 'object',
    properties: {
      command: { type: 'array', items: { type: 'string' }, description: 'The command to execute' },
      workdir: { type: 'string', description: 'The working directory to execute the command in' },
      timeout_ms: { type: 'number', description: 'The timeout for the command in milliseconds' },
      with_escalated_permissions: { type: 'boolean' },
      justification: { type: 'string' },
    },
    required: ['command'],
    additionalProperties: false,
  },
};

const WEATHER = {
  name: 'get_weather',
  description: 'Current weather',
  parameters: {
    type: 'object',
    properties: {
      city: { type: 'string', minLength: 1 },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      days: { type: 'integer', minimum: 1, maximum: 14 },
      where: {
        type: 'object',
        properties: { lat: { type: 'number', minimum: -90, maximum: 90 }, lon: { type: 'number' } },
        required: ['lat', 'lon'],
        additionalProperties: false,
      },
    },
    required: ['city', 'unit', 'where'],
    additionalProperties: false,
  },
};

/** A chat request offering `tools` (chat shape): the call the simulator's council makes. */
async function chatCall(url: string, tools: unknown[], question: string, headers: Record<string, string> = {}) {
  const res = await post(
    `${url}/v1/chat/completions`,
    {
      model: 'nsed:fast',
      messages: [{ role: 'user', content: question }],
      tools,
    },
    headers,
  );
  const body = (await res.json()) as ChatCompletion;
  const call = body.choices[0]?.message.tool_calls?.[0];
  expect(body.choices[0]?.finish_reason).toBe('tool_calls');
  return { name: call?.function.name, args: JSON.parse(call?.function.arguments ?? 'null') as unknown };
}

describe('tool-call arguments fit the tool JSON Schema', () => {
  it('codex-like: the shell call over the Responses API validates (required command, closed object) and carries an argv', async () => {
    const s = await sim(HOLD);
    const res = await post(`${s.url}/v1/responses`, {
      model: 'nsed:fast',
      instructions: 'You are a coding agent running in the Codex CLI.',
      input: [
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: '<environment_context>\n  <cwd>/work/repo</cwd>\n</environment_context>' },
          ],
        },
        {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: 'List the files in this repository with shell' }],
        },
      ],
      tools: [CODEX_SHELL],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      store: false,
      stream: false,
    });
    const body = (await res.json()) as { output: Array<Record<string, unknown>> };
    const call = body.output.find((i) => i.type === 'function_call');
    expect(call?.name).toBe('shell');
    const args = JSON.parse(String(call?.arguments)) as { command: string[] };
    expect(schemaErrors(CODEX_SHELL.parameters, args)).toEqual([]);
    expect(args.command[0]).toBe('echo');
    expect(args.command.every((a) => typeof a === 'string')).toBe(true);
  });

  it('codex-like, streamed: the function_call arguments of the event stream validate too', async () => {
    const s = await sim(HOLD);
    const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const stream = await client.responses.create({
      model: 'nsed:fast',
      input: 'Show the git log with shell',
      tools: [CODEX_SHELL as OpenAI.Responses.FunctionTool],
      store: false,
      stream: true,
    });
    const done: string[] = [];
    for await (const e of stream) if (e.type === 'response.function_call_arguments.done') done.push(e.arguments);
    expect(done).toHaveLength(1);
    expect(schemaErrors(CODEX_SHELL.parameters, JSON.parse(done[0] ?? 'null'))).toEqual([]);
  });

  it('promptfoo-like: enum, required, nested objects and additionalProperties false hold, values come from the question', async () => {
    const s = await sim(HOLD);
    const { name, args } = await chatCall(
      s.url,
      [{ type: 'function', function: WEATHER }],
      'Use get_weather for Paris in celsius for the next 3 days',
    );
    expect(name).toBe('get_weather');
    expect(schemaErrors(WEATHER.parameters, args)).toEqual([]);
    expect(args).toMatchObject({ city: 'Paris', unit: 'celsius' });
    // An optional field the question answers is filled from it.
    if ((args as { days?: number }).days !== undefined) expect((args as { days: number }).days).toBe(3);
  });

  it('a tool without parameters, or with no properties, gets {}; an open object (what --tool declares) gets the question as input', async () => {
    const s = await sim(HOLD);
    const bare = await chatCall(s.url, [{ type: 'function', function: { name: 'get_time' } }], 'Call get_time now');
    expect(bare).toEqual({ name: 'get_time', args: {} });
    const open = await chatCall(
      s.url,
      [{ type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } }],
      'Call get_time again',
    );
    expect(open).toEqual({ name: 'get_time', args: {} });
    const picks = await chatCall(
      s.url,
      [{ type: 'function', function: { name: 'calculator', parameters: { type: 'object' } } }],
      'Use the calculator to compute 2+2',
    );
    expect(picks).toEqual({ name: 'calculator', args: { input: '2+2' } });
  });

  it('does not fill every optional field and never puts the whole question into the first string field', async () => {
    const s = await sim(HOLD);
    const properties = Object.fromEntries(
      ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'].map((k) => [k, { type: 'string' }]),
    );
    const schema = { type: 'object', properties, required: ['alpha'] };
    const question = 'Run the notes tool on the quarterly database migration plan';
    const { args } = await chatCall(
      s.url,
      [{ type: 'function', function: { name: 'notes', parameters: schema } }],
      question,
    );
    expect(schemaErrors(schema, args)).toEqual([]);
    const filled = Object.keys(args as object);
    expect(filled).toContain('alpha');
    expect(filled.length).toBeLessThan(8);
    expect(Object.values(args as object)).not.toContain(question);
  });

  it('native user_tools get the same schema-fitting arguments (the pending call record)', async () => {
    const s = await sim({ ...HOLD, hold: true });
    const res = await post(`${s.url}/deliberation`, {
      room_id: 'room-tool-args',
      user_query: 'Use get_weather for Oslo in fahrenheit',
      agent_names: ['CortexA', 'CortexB'],
      deliberation_rounds: 1,
      user_tools: [WEATHER],
    });
    expect(res.status).toBe(202);
    // Round 1's proposals and evaluations; the leader's call opens as the evaluations end.
    s.control.release('room-tool-args', 2);
    await s.control.phases('room-tool-args', 2);
    const r = await fetch(`${s.url}/deliberation/room-tool-args/tool-calls?status=pending`);
    const job = ((await r.json()) as { tool_calls: Array<{ arguments: unknown }> }).tool_calls[0];
    expect(schemaErrors(WEATHER.parameters, job?.arguments)).toEqual([]);
    expect(job?.arguments).toMatchObject({ city: 'Oslo', unit: 'fahrenheit' });
  });
});

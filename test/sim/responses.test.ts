import OpenAI, { BadRequestError, NotFoundError } from 'openai';
import { describe, expect, it } from 'vitest';
import type { PendingToolCall } from '../../src/protocol/wire.js';
import type { SimServer } from '../../src/sim/server.js';
import { getJson, post, sim } from '../harness/sse.js';

const TOKEN = 'responses-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const clientOf = (url: string): OpenAI => new OpenAI({ baseURL: `${url}/v1`, apiKey: TOKEN, maxRetries: 0 });

// Far beyond any test: a call here is answered by the test, never left to expire.
const HOLD = { toolWaitMs: 10 * 60_000 };

const functionCallOf = (r: OpenAI.Responses.Response): OpenAI.Responses.ResponseFunctionToolCall | undefined =>
  r.output.find((i): i is OpenAI.Responses.ResponseFunctionToolCall => i.type === 'function_call');

const callsOf = async (url: string, jobId: string): Promise<PendingToolCall[]> =>
  ((await getJson(`${url}/deliberation/${jobId}/tool-calls`, AUTH)).body as { tool_calls: PendingToolCall[] })
    .tool_calls;

const pendingCalls = async (url: string, jobId: string): Promise<PendingToolCall[]> =>
  (await callsOf(url, jobId)).filter((c) => c.status === 'Pending');

/** One job answered the whole round trip: the only one started, its call answered with the output, its answer done. */
async function expectOneJobAnswered(s: SimServer, jobId: string, followUpJob: string | null): Promise<void> {
  expect(jobId).toMatch(/^room-/);
  expect(followUpJob).toBe(jobId);
  expect(s.control.jobs().map((j) => j.jobId)).toEqual([jobId]);
  expect(await callsOf(s.url, jobId)).toEqual([
    expect.objectContaining({ status: 'Responded', result: '12°C and raining' }),
  ]);
  expect(((await getJson(`${s.url}/deliberation/${jobId}/result`, AUTH)).body as { status: string }).status).toBe(
    'completed',
  );
}

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

const weatherQuestion = {
  model: 'nsed:fast',
  input: 'Use the weather tool for Paris, then advise on a coat',
  tools: [weather],
};

/** Asks the weather question without streaming: the response, its call, and the job that made it. */
async function askWeather(client: OpenAI) {
  const { data: asked, response } = await client.responses.create(weatherQuestion).withResponse();
  return { asked, call: functionCallOf(asked), jobId: response.headers.get('x-nsed-session-id') ?? '' };
}

/** Sends the weather for `callId` on the thread of `previous`: the response and the job that answered. */
async function answerWeather(client: OpenAI, previous: string, callId: string) {
  const { data: answered, response } = await client.responses
    .create({
      model: 'nsed:fast',
      previous_response_id: previous,
      input: [{ type: 'function_call_output', call_id: callId, output: '12°C and raining' }],
      tools: [weather],
    })
    .withResponse();
  return { answered, jobId: response.headers.get('x-nsed-session-id') };
}

describe('POST /v1/responses with the official openai package (responses.create)', () => {
  it('answers without streaming: a reasoning item with the deliberation progress when asked, then the message', async () => {
    const s = await sim({ token: TOKEN, seed: 3 });
    const r = await clientOf(s.url).responses.create({
      model: 'nsed:fast',
      input: 'Design a distributed cache',
      reasoning: { summary: 'auto' },
    });
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
      include: ['reasoning.encrypted_content'],
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

  it('round-trips a function tool: the response ends at the call, and its output feeds the same job', async () => {
    const s = await sim({ token: TOKEN, ...HOLD });
    const client = clientOf(s.url);
    const { asked, call, jobId } = await askWeather(client);
    expect(asked.status).toBe('completed');
    expect(call?.name).toBe('weather');
    expect(JSON.parse(call?.arguments ?? '{}')).toHaveProperty('city');
    // The response came at the call, not at its expiry: the job still waits for the result.
    expect(await pendingCalls(s.url, jobId)).toEqual([expect.objectContaining({ call_id: call?.call_id })]);
    const { answered, jobId: answeredBy } = await answerWeather(client, asked.id, call?.call_id ?? '');
    expect(answered.id).not.toBe(asked.id);
    expect(answered.previous_response_id).toBe(asked.id);
    expect(answered.output.some((i) => i.type === 'function_call')).toBe(false);
    expect(answered.output_text).toContain('12°C and raining');
    await expectOneJobAnswered(s, jobId, answeredBy);
  });

  it('streams a tool round trip: response.completed at the call, then the same job streams the answer', async () => {
    const s = await sim({ token: TOKEN, ...HOLD });
    const client = clientOf(s.url);
    const { data: first, response: firstHttp } = await client.responses
      .create({
        model: 'nsed:fast',
        input: 'Use the weather tool for Paris, then advise on a coat',
        tools: [weather],
        stream: true,
      })
      .withResponse();
    const types: string[] = [];
    let asked: OpenAI.Responses.Response | undefined;
    for await (const event of first) {
      types.push(event.type);
      if (event.type === 'response.completed') asked = event.response;
    }
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toContain('response.function_call_arguments.done');
    expect(asked?.status).toBe('completed');
    const call = asked === undefined ? undefined : functionCallOf(asked);
    expect(call?.name).toBe('weather');
    const jobId = firstHttp.headers.get('x-nsed-session-id') ?? '';
    expect(await pendingCalls(s.url, jobId)).toEqual([expect.objectContaining({ call_id: call?.call_id })]);

    const { data: second, response: secondHttp } = await client.responses
      .create({
        model: 'nsed:fast',
        previous_response_id: asked?.id ?? '',
        input: [{ type: 'function_call_output', call_id: call?.call_id ?? '', output: '12°C and raining' }],
        tools: [weather],
        reasoning: { summary: 'auto' },
        stream: true,
      })
      .withResponse();
    const later: string[] = [];
    let text = '';
    let answered: OpenAI.Responses.Response | undefined;
    for await (const event of second) {
      later.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') answered = event.response;
    }
    expect(later[0]).toBe('response.created');
    expect(later.at(-1)).toBe('response.completed');
    expect(later).not.toContain('response.function_call_arguments.done');
    expect(text).toContain('12°C and raining');
    expect(answered?.output_text ?? text).toBe(text);
    // The answer starts past the asking one: its reasoning goes on from the result, not from round 1.
    const reasoning = answered?.output.find((i) => i.type === 'reasoning');
    const summary = reasoning?.type === 'reasoning' ? reasoning.summary.map((p) => p.text) : [];
    expect(summary[0]).toMatch(/received the weather result/);
    await expectOneJobAnswered(s, jobId, secondHttp.headers.get('x-nsed-session-id'));
  });

  it('falls back to a new job over the thread when the call expired before its output came', async () => {
    // The call expires at once; the test waits for the job to end, which it can only do past the expiry.
    const s = await sim({ token: TOKEN, toolWaitMs: 0 });
    const client = clientOf(s.url);
    const { asked, call, jobId } = await askWeather(client);
    await s.control.ended(jobId);
    expect(await callsOf(s.url, jobId)).toEqual([expect.objectContaining({ status: 'Expired' })]);
    const { answered, jobId: second } = await answerWeather(client, asked.id, call?.call_id ?? '');
    // A new deliberation whose council reads the result from the thread, as before this route fed jobs.
    expect(second).not.toBe(jobId);
    expect(s.control.jobs().map((j) => j.jobId)).toEqual([jobId, second]);
    expect(answered.output.some((i) => i.type === 'function_call')).toBe(false);
    expect(answered.output_text).toContain('12°C and raining');
  });

  it('falls back to a new job when the output names a call the job is not waiting for', async () => {
    const s = await sim({ token: TOKEN, ...HOLD });
    const client = clientOf(s.url);
    const { asked, jobId } = await askWeather(client);
    const { answered, jobId: answeredBy } = await answerWeather(client, asked.id, 'call_unknown');
    expect(answeredBy).not.toBe(jobId);
    expect(s.control.jobs()).toHaveLength(2);
    expect(answered.output_text).toContain('12°C and raining');
    // The first job's call is untouched: it still waits for its own output.
    expect(await pendingCalls(s.url, jobId)).toHaveLength(1);
  });

  it('strict profile: a repeated follow-up is a dedup hit on the fed job, answered from the same place', async () => {
    const s = await sim({ token: TOKEN, profile: 'strict', ...HOLD });
    const client = clientOf(s.url);
    const { asked, call, jobId } = await askWeather(client);
    // The asking request again: the same job, ending at the same call.
    const again = await askWeather(client);
    expect(again.jobId).toBe(jobId);
    expect(again.call?.call_id).toBe(call?.call_id);
    const { answered, jobId: answeredBy } = await answerWeather(client, asked.id, call?.call_id ?? '');
    const { answered: repeated, jobId: repeatedBy } = await answerWeather(client, asked.id, call?.call_id ?? '');
    expect(answered.output_text).toContain('12°C and raining');
    expect(repeated.output_text).toBe(answered.output_text);
    expect(repeated.output.some((i) => i.type === 'function_call')).toBe(false);
    expect(answeredBy).toBe(jobId);
    expect(repeatedBy).toBe(jobId);
    expect(s.control.jobs()).toHaveLength(1);
  });

  it('strict profile: a passthrough answer is roomless (no session id) and calls no tool', async () => {
    const s = await sim({ token: TOKEN, profile: 'strict' });
    const client = clientOf(s.url);
    const { data: r, response } = await client.responses
      .create({ model: 'nsed:passthrough', input: 'Use the weather tool for Paris', tools: [weather] })
      .withResponse();
    expect(response.headers.get('x-nsed-session-id')).toBeNull();
    expect(r.status).toBe('completed');
    expect(r.output.some((i) => i.type === 'function_call')).toBe(false);
    expect(r.output_text).not.toBe('');
    const next = await client.responses.create({
      model: 'nsed:passthrough',
      input: 'And Lyon?',
      previous_response_id: r.id,
    });
    expect(next.status).toBe('completed');
    expect(((await getJson(`${s.url}/deliberations`, AUTH)).body as { jobs: unknown[] }).jobs).toEqual([]);
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

import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { tokens } from '../../src/sim/metering.js';
import type { ProfileName } from '../../src/sim/profile.js';
import { parseNdjson, testRig } from '../harness/rig.js';
import { getJson, post, postSse, sim } from '../harness/sse.js';

// Far beyond any test: a call here is answered by the test, or left pending when the test ends.
const HOLD = { toolWaitMs: 10 * 60_000 };
const QUESTION = 'Should we cache the session store in Redis or keep it in Postgres?';

interface Budget {
  budget: { total_input_tokens?: number; total_output_tokens?: number; estimated_cost_usd?: number };
}

/** What the council reported using for the whole job, from `/budget` (docs/protocol.md §3.7). */
async function budgetOf(url: string, jobId: string): Promise<{ input: number; output: number }> {
  const b = (await getJson(`${url}/deliberation/${jobId}/budget`)).body as Budget;
  return { input: b.budget.total_input_tokens ?? NaN, output: b.budget.total_output_tokens ?? NaN };
}

interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/**
 * The GAP (docs/protocol.md §14, item 18): nothing says whether a compat answer's `usage` counts the
 * deliberation or the exchange. Default: the council's totals, so an OpenAI client adds up what
 * a council costs; strict: the question and the answer only. Clients are tested under both.
 */
describe.each<ProfileName>(['default', 'strict'])('the usage of a compat answer (profile %s)', (profile) => {
  const expected = async (
    url: string,
    jobId: string,
    answer: string,
  ): Promise<{ prompt_tokens: number; completion_tokens: number }> => {
    const totals = await budgetOf(url, jobId);
    return profile === 'default'
      ? { prompt_tokens: totals.input, completion_tokens: totals.output }
      : { prompt_tokens: tokens(QUESTION), completion_tokens: tokens(answer) };
  };

  it('a chat completion counts what the profile says, and total_tokens is their sum', async () => {
    const s = await sim({ profile });
    const res = await post(`${s.url}/v1/chat/completions`, {
      model: 'nsed:fast',
      messages: [{ role: 'user', content: QUESTION }],
    });
    const body = (await res.json()) as { usage: ChatUsage; choices: Array<{ message: { content: string } }> };
    const jobId = res.headers.get('x-nsed-session-id') ?? '';
    const want = await expected(s.url, jobId, body.choices[0]?.message.content ?? '');
    expect(body.usage).toEqual({ ...want, total_tokens: want.prompt_tokens + want.completion_tokens });
    const totals = await budgetOf(s.url, jobId);
    // The council read and wrote far more than the question and the answer.
    if (profile === 'default') expect(body.usage.prompt_tokens).toBeGreaterThan(5 * tokens(QUESTION));
    else expect(body.usage.prompt_tokens).toBeLessThan(totals.input);
  });

  it('the include_usage chunk of a stream says the same', async () => {
    const s = await sim({ profile });
    const r = await postSse(`${s.url}/v1/chat/completions`, {
      model: 'nsed:fast',
      messages: [{ role: 'user', content: QUESTION }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const last = r.data.filter((d) => d !== '[DONE]').at(-1) ?? '{}';
    const usage = (JSON.parse(last) as { usage: ChatUsage }).usage;
    const answer = r.chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    const want = await expected(s.url, r.headers.get('x-nsed-session-id') ?? '', answer);
    expect(usage).toEqual({ ...want, total_tokens: want.prompt_tokens + want.completion_tokens });
  });

  it('a Responses answer counts the same, with cached and cache_write tokens (none) in its details', async () => {
    const s = await sim({ profile });
    const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const { data: response, response: raw } = await client.responses
      .create({ model: 'nsed:fast', input: QUESTION })
      .withResponse();
    const jobId = raw.headers.get('x-nsed-session-id') ?? '';
    const usage = response.usage as unknown as Record<string, unknown> & {
      input_tokens: number;
      output_tokens: number;
    };
    expect(usage.input_tokens_details).toEqual({ cached_tokens: 0, cache_write_tokens: 0 });
    expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
    const totals = await budgetOf(s.url, jobId);
    if (profile === 'default') {
      expect({ input: usage.input_tokens, output: usage.output_tokens }).toEqual(totals);
      // What the council wrote beyond the visible answer is counted as reasoning.
      expect(usage.output_tokens_details).toEqual({
        reasoning_tokens: totals.output - Math.ceil(response.output_text.length / 4),
      });
    } else {
      expect(usage.input_tokens).toBe(tokens(QUESTION));
      expect(usage.output_tokens).toBe(Math.ceil(response.output_text.length / 4));
    }
  });
});

describe('the answers of a tool round trip (default profile)', () => {
  // Three rounds: the call comes after round 1, so rounds 2 and 3 are the follow-up's to count.
  it('each counts its own part of the deliberation: together they make the job total, none twice', async () => {
    const s = await sim({ ...HOLD });
    const tool = {
      type: 'function',
      function: {
        name: 'lookup',
        parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
      },
    };
    const messages: unknown[] = [{ role: 'user', content: 'Use lookup to find the session store size' }];
    const first = await post(
      `${s.url}/v1/chat/completions`,
      { model: 'nsed:balanced', messages, tools: [tool] },
      { 'x-opencode-session': 'usage-trip' },
    );
    const jobId = first.headers.get('x-nsed-session-id') ?? '';
    const a = (await first.json()) as {
      usage: ChatUsage;
      choices: Array<{ finish_reason: string; message: Record<string, unknown> }>;
    };
    expect(a.choices[0]?.finish_reason).toBe('tool_calls');
    const call = (a.choices[0]?.message.tool_calls as Array<{ id: string }>)[0];
    const second = await post(
      `${s.url}/v1/chat/completions`,
      {
        model: 'nsed:balanced',
        messages: [...messages, a.choices[0]?.message, { role: 'tool', tool_call_id: call?.id, content: '42 MB' }],
        tools: [tool],
      },
      { 'x-opencode-session': 'usage-trip' },
    );
    const b = (await second.json()) as { usage: ChatUsage };
    expect(second.headers.get('x-nsed-session-id')).toBe(jobId);
    const totals = await budgetOf(s.url, jobId);
    expect(a.usage.prompt_tokens).toBeGreaterThan(0);
    expect(b.usage.prompt_tokens).toBeGreaterThan(0);
    expect({
      input: a.usage.prompt_tokens + b.usage.prompt_tokens,
      output: a.usage.completion_tokens + b.usage.completion_tokens,
    }).toEqual(totals);
  });
});

describe.each<ProfileName>(['default', 'strict'])("nsed's own client reads the cost (profile %s)", (profile) => {
  it('records the tokens the council reported, once: not the chat usage on top of them', async () => {
    const rig = await testRig({ profile });
    const r = await rig.run(['ask', '-p', 'fast', '-o', 'ndjson', QUESTION]);
    expect(r.code).toBe(0);
    const events = parseNdjson(r.stdout) as Array<Record<string, unknown>>;
    const usage = events.filter((e) => e.type === 'usage').at(-1)?.usage as Record<string, unknown>;
    const jobId = String(events.find((e) => typeof e.job_id === 'string')?.job_id ?? '');
    const totals = await budgetOf(rig.sim.url, jobId);
    expect({ input: usage.input_tokens, output: usage.output_tokens }).toEqual(totals);
    if (profile === 'default') expect(usage.cost_source).toBe('reported');
    // Strict reports tokens and no prices: the cost is unknown rather than a guess.
    else expect(usage.cost_usd).toBeNull();
  });
});

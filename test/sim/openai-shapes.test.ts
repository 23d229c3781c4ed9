import OpenAI, { BadRequestError } from 'openai';
import { describe, expect, it } from 'vitest';
import type { ChatCompletion } from '../../src/protocol/wire.js';
import { MODELS_CREATED } from '../../src/sim/routes/discovery.js';
import { getJson, post, postSse, sim } from '../harness/sse.js';

const clientOf = (url: string): OpenAI => new OpenAI({ baseURL: `${url}/v1`, apiKey: 'x', maxRetries: 0 });
const question = [{ role: 'user', content: 'Pick a queue for the billing jobs' }];

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

describe('usage on chat completions, in both shapes OpenAI sends', () => {
  it('a non-streaming completion carries usage', async () => {
    const s = await sim();
    const body = (await (
      await post(`${s.url}/v1/chat/completions`, { model: 'nsed:fast', messages: question })
    ).json()) as ChatCompletion & { usage: Usage };
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
    expect(body.usage.completion_tokens).toBeGreaterThan(0);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  });

  it('stream_options.include_usage adds a last chunk with choices [] and usage before [DONE]; without it there is none', async () => {
    const s = await sim();
    const asked = await postSse(`${s.url}/v1/chat/completions`, {
      model: 'nsed:fast',
      stream: true,
      stream_options: { include_usage: true },
      messages: question,
    });
    expect(asked.data.at(-1)).toBe('[DONE]');
    const last = JSON.parse(asked.data.at(-2) ?? '{}') as { choices: unknown[]; usage: Usage };
    expect(last.choices).toEqual([]);
    expect(last.usage.total_tokens).toBe(last.usage.prompt_tokens + last.usage.completion_tokens);
    expect(asked.data.filter((d) => d.includes('"usage"'))).toHaveLength(1);
    const plain = await postSse(`${s.url}/v1/chat/completions`, {
      model: 'nsed:fast',
      stream: true,
      messages: question,
    });
    expect(plain.data.some((d) => d.includes('"usage"'))).toBe(false);
  });

  it('the openai package reads the usage chunk', async () => {
    const s = await sim();
    const stream = await clientOf(s.url).chat.completions.create({
      model: 'nsed:fast',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Pick a queue for the billing jobs' }],
    });
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const c of stream) if (c.usage) usage = c.usage;
    expect(usage?.total_tokens).toBeGreaterThan(0);
  });
});

describe('the Responses object as OpenAI sends it', () => {
  it('has no reasoning item unless the request asked for reasoning', async () => {
    const s = await sim();
    const r = await clientOf(s.url).responses.create({ model: 'nsed:fast', input: 'Pick a queue' });
    expect(r.output.map((i) => i.type)).toEqual(['message']);
    expect(r.reasoning).toEqual({ effort: null, summary: null });
  });

  it('echoes store, temperature, top_p, max_output_tokens, metadata and the other request fields', async () => {
    const s = await sim();
    const r = await clientOf(s.url).responses.create({
      model: 'nsed:fast',
      input: 'Pick a queue',
      store: false,
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 4000,
      metadata: { run: 'ci-7' },
      parallel_tool_calls: false,
      reasoning: { effort: 'low' },
    });
    expect(r).toMatchObject({
      store: false,
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 4000,
      metadata: { run: 'ci-7' },
      parallel_tool_calls: false,
      reasoning: { effort: 'low' },
      truncation: 'disabled',
      tool_choice: 'auto',
      status: 'completed',
    });
    const plain = await clientOf(s.url).responses.create({ model: 'nsed:fast', input: 'Pick a queue' });
    expect(plain).toMatchObject({ store: true, temperature: 1, top_p: 1, max_output_tokens: null });
  });

  it('store: false keeps the response out of previous_response_id', async () => {
    const s = await sim();
    const client = clientOf(s.url);
    const r = await client.responses.create({ model: 'nsed:fast', input: 'Pick a queue', store: false });
    await expect(
      client.responses.create({ model: 'nsed:fast', input: 'and then?', previous_response_id: r.id }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('honours max_output_tokens: status incomplete, incomplete_details max_output_tokens, the text cut (blocking and streamed)', async () => {
    const s = await sim();
    const client = clientOf(s.url);
    const full = await client.responses.create({ model: 'nsed:fast', input: 'Pick a queue' });
    const cut = await client.responses.create({ model: 'nsed:fast', input: 'Pick a queue', max_output_tokens: 16 });
    expect(cut.status).toBe('incomplete');
    expect(cut.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(cut.output_text.length).toBeLessThanOrEqual(64);
    expect(full.output_text.startsWith(cut.output_text)).toBe(true);
    expect(cut.usage?.output_tokens).toBeLessThanOrEqual(16);
    const stream = await client.responses.create({
      model: 'nsed:fast',
      input: 'Pick a queue',
      max_output_tokens: 16,
      stream: true,
    });
    const types: string[] = [];
    for await (const e of stream) types.push(e.type);
    expect(types.at(-1)).toBe('response.incomplete');
    expect(types).not.toContain('response.completed');
    await expect(
      client.responses.create({ model: 'nsed:fast', input: 'Pick a queue', max_output_tokens: 3 }),
    ).rejects.toBeInstanceOf(BadRequestError);
  });

  it('usage is null in response.created and response.in_progress, set at the end', async () => {
    const s = await sim();
    const stream = await clientOf(s.url).responses.create({ model: 'nsed:fast', input: 'Pick a queue', stream: true });
    const usages: Array<[string, unknown]> = [];
    for await (const e of stream)
      if (e.type === 'response.created' || e.type === 'response.in_progress' || e.type === 'response.completed')
        usages.push([e.type, e.response.usage]);
    expect(usages.slice(0, 2)).toEqual([
      ['response.created', null],
      ['response.in_progress', null],
    ]);
    expect(usages[2]?.[0]).toBe('response.completed');
    expect((usages[2]?.[1] as { total_tokens: number }).total_tokens).toBeGreaterThan(0);
  });

  it('refuses a follow-up that changes reasoning.effort with a 400 (the seeds: a follow-up cannot change the effort)', async () => {
    const s = await sim();
    const client = clientOf(s.url);
    const first = await client.responses.create({
      model: 'nsed:fast',
      input: 'Pick a queue',
      reasoning: { effort: 'low' },
    });
    const changed = client.responses.create({
      model: 'nsed:fast',
      input: 'and then?',
      previous_response_id: first.id,
      reasoning: { effort: 'high' },
    });
    await expect(changed).rejects.toBeInstanceOf(BadRequestError);
    await expect(changed).rejects.toMatchObject({ param: 'reasoning.effort' });
    // The same effort, or none named, continues the thread with its effort.
    const same = await client.responses.create({
      model: 'nsed:fast',
      input: 'and then?',
      previous_response_id: first.id,
    });
    expect(same.reasoning?.effort).toBe('low');
  });
});

describe('GET /v1/models and /v1/models/{id}', () => {
  it('answers the model object for a listed id, OpenAI 404 for another; models have a real, fixed created time', async () => {
    const s = await sim();
    const list = (await getJson(`${s.url}/v1/models`)).body as { data: Array<{ id: string; created: number }> };
    expect(list.data.every((m) => m.created === MODELS_CREATED)).toBe(true);
    expect(new Date(MODELS_CREATED * 1000).getUTCFullYear()).toBeGreaterThanOrEqual(2025);
    const model = await clientOf(s.url).models.retrieve('nsed:mid:0v1');
    expect(model).toMatchObject({ id: 'nsed:mid:0v1', object: 'model', created: MODELS_CREATED, owned_by: 'nsed' });
    expect((await getJson(`${s.url}/v1/models/${encodeURIComponent('nsed:*')}`)).status).toBe(200);
    const missing = await getJson(`${s.url}/v1/models/gpt-4o`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: { code: 'model_not_found' } });
  });

  it('is gone with --without-route models, as on an older orchestrator', async () => {
    const s = await sim({ withoutRoutes: ['models'] });
    expect((await getJson(`${s.url}/v1/models/nsed:fast`)).status).toBe(404);
    expect((await getJson(`${s.url}/v1/models/nsed:fast`)).body).toEqual({ error: 'not found' });
  });
});

describe('client-injected context is not an earlier turn', () => {
  it('an <environment_context> or <user_instructions> user message is neither the question nor the earlier one', async () => {
    const s = await sim();
    const body = (await (
      await post(`${s.url}/v1/chat/completions`, {
        model: 'nsed:fast',
        messages: [
          { role: 'user', content: '<user_instructions>\nUse pnpm.\n</user_instructions>' },
          { role: 'user', content: '<environment_context>\n  <cwd>/work/repo</cwd>\n</environment_context>' },
          { role: 'user', content: 'Pick a queue for the billing jobs' },
        ],
      })
    ).json()) as ChatCompletion;
    const answer = body.choices[0]?.message.content ?? '';
    expect(answer).toMatch(/^## Pick a queue for the billing jobs/);
    expect(answer).not.toContain('builds on the earlier question');
  });
});

describe('errors do not echo huge fields', () => {
  it('quotes at most 200 characters of a 100,000-character value, with an ellipsis', async () => {
    const s = await sim();
    const huge = 'r'.repeat(100_000);
    const chat = await post(`${s.url}/v1/chat/completions`, { model: huge, messages: question });
    const role = await post(`${s.url}/v1/chat/completions`, { model: 'nsed:fast', messages: [{ role: huge }] });
    const submit = await post(`${s.url}/deliberation`, {
      room_id: `bad.${huge}`,
      user_query: 'x',
      agent_names: ['A', 'B'],
    });
    for (const res of [chat, role, submit]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      const text = await res.text();
      expect(text.length).toBeLessThan(1000);
      expect(text).toContain(`${'r'.repeat(200 - 4)}`);
      expect(text).toContain('…');
    }
  });
});

import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { ChatCompletion } from '../../src/protocol/wire.js';
import { SCHEMA_INSTRUCTION } from '../../src/sim/answer-format.js';
import type { SimServer } from '../../src/sim/server.js';
import { contentOf, getJson, post, postSse, sim } from '../harness/sse.js';
import { schemaErrors } from './validator.js';

const REVIEW = {
  type: 'object',
  properties: {
    verdict: { type: 'string', enum: ['approve', 'request-changes'] },
    summary: { type: 'string', minLength: 1, maxLength: 120 },
    issues: {
      type: 'array',
      items: {
        type: 'object',
        properties: { line: { type: 'integer', minimum: 1 }, message: { type: 'string' } },
        required: ['line', 'message'],
        additionalProperties: false,
      },
    },
  },
  required: ['verdict', 'summary', 'issues'],
  additionalProperties: false,
};
const JSON_SCHEMA = { type: 'json_schema', json_schema: { name: 'review', schema: REVIEW, strict: true } };
const QUESTION = 'Review the retry loop in src/app.ts';

/** A chat request asking for `format`; the answer's content and the job id. */
async function chat(s: SimServer, format: unknown, extra: Record<string, unknown> = {}, headers = {}) {
  const res = await post(
    `${s.url}/v1/chat/completions`,
    { model: 'nsed:fast', messages: [{ role: 'user', content: QUESTION }], response_format: format, ...extra },
    headers,
  );
  const body = (await res.json()) as ChatCompletion;
  return { status: res.status, body, content: body.choices?.[0]?.message.content ?? '' };
}

const parse = (text: string): unknown => JSON.parse(text) as unknown;

describe('response_format on /v1/chat/completions', () => {
  it('json_schema: the final answer is a JSON value that validates, on both the blocking and the streamed answer', async () => {
    const s = await sim();
    const { content } = await chat(s, JSON_SCHEMA);
    expect(schemaErrors(REVIEW, parse(content))).toEqual([]);
    const streamed = await postSse(`${s.url}/v1/chat/completions`, {
      model: 'nsed:fast',
      stream: true,
      messages: [{ role: 'user', content: QUESTION }],
      response_format: JSON_SCHEMA,
    });
    // The rounds stay as they are: progress and rounds first, only the answer's content changes.
    expect(streamed.chunks.some((c) => c.choices[0]?.delta.nsed_round !== undefined)).toBe(true);
    expect(contentOf(streamed.chunks)).toBe(content);
    const id = streamed.headers.get('x-nsed-session-id') ?? '';
    expect(((await getJson(`${s.url}/deliberation/${id}/result`)).body as { result: string }).result).toBe(content);
  });

  it('json_object: the answer is a JSON object', async () => {
    const s = await sim();
    const { content } = await chat(s, { type: 'json_object' });
    const value = parse(content) as Record<string, unknown>;
    expect(typeof value).toBe('object');
    expect(typeof value.answer).toBe('string');
  });

  it('text, or no response_format, leaves the answer as prose', async () => {
    const s = await sim();
    expect((await chat(s, { type: 'text' })).content).toMatch(/^## Review the retry loop/);
    expect((await chat(s, undefined)).content).toMatch(/^## Review the retry loop/);
  });

  it('refuses a response_format it cannot read with a 400 naming the parameter', async () => {
    const s = await sim();
    const r = await chat(s, { type: 'json_schema' });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain('response_format.json_schema');
    expect((await chat(s, { type: 'yaml' })).status).toBe(400);
  });

  it('schema=violate-once: the first answer on a thread violates the schema, the repair on the same thread fits', async () => {
    const s = await sim({ faults: ['schema=violate-once'] });
    const thread = { 'x-opencode-session': 'schema-thread-1' };
    const first = await chat(s, JSON_SCHEMA, {}, thread);
    expect(schemaErrors(REVIEW, parse(first.content))).not.toEqual([]);
    const repair = await chat(
      s,
      JSON_SCHEMA,
      {
        messages: [
          { role: 'user', content: QUESTION },
          { role: 'assistant', content: first.content },
          {
            role: 'user',
            content: 'Your answer does not match the schema: / must have required property. Correct it.',
          },
        ],
      },
      thread,
    );
    expect(schemaErrors(REVIEW, parse(repair.content))).toEqual([]);
    // Another thread gets its own first, violating answer.
    const other = await chat(s, JSON_SCHEMA, {}, { 'x-opencode-session': 'schema-thread-2' });
    expect(schemaErrors(REVIEW, parse(other.content))).not.toEqual([]);
  });

  it('--profile strict ignores response_format entirely (a GAP): prose comes back, and nothing is refused', async () => {
    const s = await sim({ profile: 'strict', faults: ['schema=violate-once'] });
    expect((await chat(s, JSON_SCHEMA)).content).toMatch(/^## Review the retry loop/);
    expect((await chat(s, { type: 'yaml' })).status).toBe(200);
  });
});

describe('text.format on /v1/responses', () => {
  it('json_schema with the openai package: output_text parses and validates, and text.format is echoed', async () => {
    const s = await sim();
    const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const r = await client.responses.create({
      model: 'nsed:fast',
      input: QUESTION,
      text: { format: { type: 'json_schema', name: 'review', schema: REVIEW, strict: true } },
    });
    expect(schemaErrors(REVIEW, parse(r.output_text))).toEqual([]);
    expect(r.text?.format).toMatchObject({ type: 'json_schema', name: 'review' });
  });

  it('schema=violate-once breaks the first response of a thread only; previous_response_id continues the thread', async () => {
    const s = await sim({ faults: ['schema=violate-once'] });
    const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const text = { format: { type: 'json_schema' as const, name: 'review', schema: REVIEW, strict: true } };
    const first = await client.responses.create({ model: 'nsed:fast', input: QUESTION, text });
    expect(schemaErrors(REVIEW, parse(first.output_text))).not.toEqual([]);
    const repaired = await client.responses.create({
      model: 'nsed:fast',
      input: 'That does not match the schema; correct it.',
      previous_response_id: first.id,
      text,
    });
    expect(schemaErrors(REVIEW, parse(repaired.output_text))).toEqual([]);
  });
});

describe('a schema in native system_instructions (the wording nsed uses)', () => {
  const submit = (s: SimServer, room: string, instructions: string) =>
    post(`${s.url}/deliberation`, {
      room_id: room,
      conversation_id: 'conv-schema',
      user_query: QUESTION,
      agent_names: ['CortexA', 'CortexB'],
      deliberation_rounds: 1,
      system_instructions: instructions,
    });
  const resultOf = async (s: SimServer, room: string): Promise<string> => {
    await s.control.ended(room);
    return ((await getJson(`${s.url}/deliberation/${room}/result`)).body as { result: string }).result;
  };
  const worded = `Be brief.\n\n${SCHEMA_INSTRUCTION}\n${JSON.stringify(REVIEW, null, 2)}\n\nNo prose around it.`;

  it('answers JSON that fits the schema; other instructions stay prose', async () => {
    const s = await sim();
    expect((await submit(s, 'room-schema-1', worded)).status).toBe(202);
    expect(schemaErrors(REVIEW, parse(await resultOf(s, 'room-schema-1')))).toEqual([]);
    await submit(s, 'room-schema-2', 'Answer in JSON please.');
    expect(await resultOf(s, 'room-schema-2')).toMatch(/^## Review the retry loop/);
  });

  it('schema=violate-once (submit scope) breaks the first answer of the conversation, not the repair turn', async () => {
    const s = await sim({ faults: ['submit:schema=violate-once'] });
    await submit(s, 'room-schema-3', worded);
    expect(schemaErrors(REVIEW, parse(await resultOf(s, 'room-schema-3')))).not.toEqual([]);
    await submit(s, 'room-schema-4', worded);
    expect(schemaErrors(REVIEW, parse(await resultOf(s, 'room-schema-4')))).toEqual([]);
  });

  it('--profile strict ignores it', async () => {
    const s = await sim({ profile: 'strict' });
    await submit(s, 'room-schema-5', worded);
    expect(await resultOf(s, 'room-schema-5')).toMatch(/^## Review the retry loop/);
  });
});

import { describe, expect, it } from 'vitest';
import type { ChatCompletion, NsedRound } from '../../src/protocol/wire.js';
import { ask, contentOf, deltas, getJson, post, postSse, sim, withoutIds } from '../harness/sse.js';

const VERDICTS = ['verified', 'contested', 'unverified', 'wrong', 'unknown'];

describe('POST /v1/chat/completions, streaming', () => {
  it('streams role, reasoning, rounds, content in pieces, a finish chunk and [DONE]', async () => {
    const s = await sim();
    const r = await postSse(`${s.url}/v1/chat/completions`, ask('Design a distributed cache'));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/event-stream');
    const session = r.headers.get('x-nsed-session-id');
    expect(session).toMatch(/^room-[0-9a-f]{8}$/);
    expect(r.data[r.data.length - 1]).toBe('[DONE]');
    expect(r.done).toBe(true);

    const ds = deltas(r.chunks);
    expect(ds[0]).toEqual({ role: 'assistant', nsed_session_id: session });
    expect(new Set(r.chunks.map((c) => c.id)).size).toBe(1);
    expect(r.chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);

    const reasoning = ds.flatMap((d) => (d.reasoning_content === undefined ? [] : [d.reasoning_content]));
    expect(reasoning).toContain('Round 1/3 — proposals from CortexA, CortexB, CortexC');
    expect(reasoning.some((t) => /^Round 1 complete — convergence: \d+%$/.test(t))).toBe(true);
    expect(reasoning.some((t) => t.startsWith('Round 3 complete'))).toBe(true);

    const rounds = ds.flatMap((d) => (d.nsed_round ? [d.nsed_round] : [])) as NsedRound[];
    const unscored = rounds.filter((x) => !x.scored);
    const scored = rounds.filter((x) => x.scored);
    expect(unscored).toHaveLength(9);
    expect(unscored.slice(0, 3).map((x) => x.candidates.length)).toEqual([1, 2, 3]);
    expect(scored.map((x) => x.round)).toEqual([1, 2, 3]);
    for (const x of rounds) {
      expect(x.total_rounds).toBe(3);
      expect(x.progress).toBeGreaterThan(0);
      expect(x.progress).toBeLessThanOrEqual(1);
    }
    for (const c of scored.flatMap((x) => x.candidates)) {
      expect(Object.keys(c).sort()).toEqual(['agent_id', 'claims', 'content_preview', 'score', 'thought_preview']);
      expect(c.claims.length).toBeLessThanOrEqual(8);
      for (const claim of c.claims) expect(VERDICTS).toContain(claim.verdict);
    }

    const pieces = ds.flatMap((d) => (typeof d.content === 'string' ? [d.content] : []));
    expect(pieces.length).toBeGreaterThan(3);
    const answer = contentOf(r.chunks);
    expect(answer).toMatch(/^## Design a distributed cache\n/);
    expect(answer.length).toBeGreaterThanOrEqual(600);

    const finish = r.chunks[r.chunks.length - 1];
    expect(finish?.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop' });
    expect(r.chunks.slice(0, -1).every((c) => c.choices[0]?.finish_reason === null)).toBe(true);
  });

  it('runs one round for nsed:fast and five for nsed:deep', async () => {
    const s = await sim();
    const count = async (model: string) => {
      const r = await postSse(`${s.url}/v1/chat/completions`, ask('Pick a queue', { model }));
      return deltas(r.chunks).filter((d) => d.nsed_round?.scored).length;
    };
    expect(await count('nsed:fast')).toBe(1);
    expect(await count('nsed:deep')).toBe(5);
    expect(await count('nsed:mid:0v1')).toBe(2);
  });

  it('is deterministic for one seed, apart from ids and timestamps, and varies with the seed', async () => {
    const a = await sim({ seed: 7 });
    const b = await sim({ seed: 7 });
    const c = await sim({ seed: 8 });
    const body = ask('Choose a storage engine for time series');
    const [ra, rb, rc] = await Promise.all([a, b, c].map((s) => postSse(`${s.url}/v1/chat/completions`, body)));
    expect(withoutIds(ra?.data ?? [])).toEqual(withoutIds(rb?.data ?? []));
    const proposals = (r: typeof ra) =>
      deltas(r?.chunks ?? []).flatMap((d) => d.nsed_round?.candidates.map((x) => x.content_preview) ?? []);
    expect(proposals(ra).length).toBeGreaterThan(0);
    expect(proposals(ra)).not.toEqual(proposals(rc));
  });
});

describe('POST /v1/chat/completions, not streaming', () => {
  it('blocks until the job ends and answers with the chat.completion object', async () => {
    const s = await sim({ seed: 3 });
    const res = await post(`${s.url}/v1/chat/completions`, ask('Design a distributed cache', { stream: false }));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-nsed-session-id')).toMatch(/^room-[0-9a-f]{8}$/);
    const body = (await res.json()) as ChatCompletion;
    expect(body.object).toBe('chat.completion');
    expect(body.model).toBe('nsed:*');
    expect(body.choices[0]?.finish_reason).toBe('stop');
    expect(body.choices[0]?.message.role).toBe('assistant');
    expect(body.nsed_metadata).toBeUndefined();
    const streamed = await postSse(`${s.url}/v1/chat/completions`, ask('Design a distributed cache'));
    expect(body.choices[0]?.message.content).toBe(contentOf(streamed.chunks));
  });

  it('treats an omitted stream field as not streaming', async () => {
    const s = await sim();
    const res = await post(`${s.url}/v1/chat/completions`, {
      model: 'nsed:fast',
      messages: [{ role: 'user', content: 'hi there' }],
    });
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(((await res.json()) as ChatCompletion).object).toBe('chat.completion');
  });
});

describe('passthrough and moderator policies', () => {
  it.each([
    ['nsed:passthrough', 'passthrough'],
    ['nsed:moderated', 'moderator'],
  ])('%s streams the minimal sequence', async (model) => {
    const s = await sim();
    const r = await postSse(`${s.url}/v1/chat/completions`, ask('Summarise this thread', { model }));
    const session = r.headers.get('x-nsed-session-id');
    expect(session).toMatch(/^room-/);
    expect(r.data).toHaveLength(4);
    const ds = deltas(r.chunks);
    expect(ds[0]).toEqual({ role: 'assistant', nsed_session_id: session });
    expect(typeof ds[1]?.content).toBe('string');
    expect(Object.keys(ds[1] ?? {})).toEqual(['content']);
    expect(r.chunks[2]?.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop' });
    expect(r.data[3]).toBe('[DONE]');
    expect(r.data.join('')).not.toMatch(/nsed_metadata|reasoning_content|nsed_round/);
  });

  it.each([
    ['nsed:passthrough', 'passthrough'],
    ['nsed:moderated', 'moderator'],
  ])('%s adds nsed_metadata.mode to the non-streaming object and registers a completed job', async (model, mode) => {
    const s = await sim();
    const res = await post(
      `${s.url}/v1/chat/completions`,
      ask('Title for a chat about caches', { model, stream: false }),
    );
    const id = res.headers.get('x-nsed-session-id') ?? '';
    const body = (await res.json()) as ChatCompletion;
    expect(body.nsed_metadata).toEqual({ mode });
    const result = await getJson(`${s.url}/deliberation/${id}/result`);
    expect(result).toEqual({
      status: 200,
      body: { job_id: id, status: 'completed', result: body.choices[0]?.message.content },
    });
    const resumed = await postSse(`${s.url}/deliberation/${id}/resume`, '');
    expect(resumed.data).toHaveLength(4);
    expect(contentOf(resumed.chunks)).toBe(body.choices[0]?.message.content);
  });
});

describe('request errors', () => {
  it.each([['nsed:nope'], ['gpt-4o'], ['deep']])('answers 404 model_not_found for %s', async (model) => {
    const s = await sim();
    const res = await post(`${s.url}/v1/chat/completions`, ask('hi', { model }));
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { message: string; type: string; code: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.code).toBe('model_not_found');
    expect(body.error.message).toMatch(new RegExp(`^model '${model.replace('*', '\\*')}' not found: no policy`));
  });

  it.each([
    ['a body that is not JSON', '{"model": "nsed:*", '],
    ['missing messages', { model: 'nsed:*' }],
    ['empty messages', { model: 'nsed:*', messages: [] }],
    ['a message without a role', { model: 'nsed:*', messages: [{ content: 'x' }] }],
    ['a JSON array body', [1, 2]],
  ])('answers 400 invalid_request for %s', async (_name, body) => {
    const s = await sim();
    const res = await post(`${s.url}/v1/chat/completions`, body);
    expect(res.status).toBe(400);
    const parsed = (await res.json()) as { error: { type: string; code: string; message: string } };
    expect(parsed.error.code).toBe('invalid_request');
    expect(parsed.error.type).toBe('invalid_request_error');
    expect(parsed.error.message.length).toBeGreaterThan(5);
    expect(s.requests.length).toBe(1);
  });
});

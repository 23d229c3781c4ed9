import { describe, expect, it } from 'vitest';
import { NsedError } from '../../src/errors.js';
import { startSim } from '../../src/sim/server.js';
import { ask, getJson, post, postSse, sim, until } from '../harness/sse.js';

const FAULT = 'x-nsed-sim-fault';
const chatUrl = (url: string) => `${url}/v1/chat/completions`;

async function statusOf(url: string, id: string): Promise<string> {
  return ((await getJson(`${url}/deliberation/${id}/result`)).body as { status: string }).status;
}

describe('stream faults', () => {
  it('drop-after=N destroys the socket after N data events while the job runs on (reliability #27)', async () => {
    const s = await sim();
    const r = await postSse(chatUrl(s.url), ask('Design a cache'), { [FAULT]: 'drop-after=3' });
    expect(r.data).toHaveLength(3);
    expect(r.done).toBe(false);
    expect(r.error).toBeDefined();
    const id = r.headers.get('x-nsed-session-id') ?? '';
    await until(async () => (await statusOf(s.url, id)) === 'completed');
  });

  it('stall-ms sends nothing at all, not even keep-alives, for the stall, then continues (reliability #28)', async () => {
    const s = await sim({ roundMs: 3, keepaliveMs: 10 });
    const r = await postSse(chatUrl(s.url), ask('Design a cache', { model: 'nsed:fast' }), {
      [FAULT]: 'stall-ms=200;stall-after=2',
    });
    expect(r.done).toBe(true);
    expect(r.comments).toEqual([]);
    const gaps = r.reads.slice(1).map((t, i) => t - (r.reads[i] ?? 0));
    expect(Math.max(...gaps)).toBeGreaterThanOrEqual(190);
    const live = await postSse(chatUrl(s.url), ask('Design a cache', { model: 'nsed:fast' }));
    expect(r.data.length).toBe(live.data.length);
  });

  it('malformed-at=N sends the Nth data event as broken JSON and the rest intact (reliability #17)', async () => {
    const s = await sim();
    const r = await postSse(chatUrl(s.url), ask('Design a cache', { model: 'nsed:fast' }), {
      [FAULT]: 'malformed-at=2',
    });
    expect(() => JSON.parse(r.data[1] ?? '')).toThrow();
    expect(r.data[1]?.startsWith('{"id":"chatcmpl-')).toBe(true);
    expect(r.chunks).toHaveLength(r.data.length - 2);
    expect(r.done).toBe(true);
  });

  it('eof-without-done ends the response cleanly after the first content chunk (reliability #26)', async () => {
    const s = await sim();
    const r = await postSse(chatUrl(s.url), ask('Design a cache', { model: 'nsed:fast' }), {
      [FAULT]: 'eof-without-done',
    });
    expect(r.error).toBeUndefined();
    expect(r.done).toBe(false);
    const last = r.chunks[r.chunks.length - 1]?.choices[0];
    expect(typeof last?.delta.content).toBe('string');
    expect(last?.finish_reason).toBeNull();
    expect(r.chunks.filter((c) => c.choices[0]?.delta.content !== undefined)).toHaveLength(1);
  });

  it('end=bare-done ends completed and failed jobs with [DONE] and no closing chunk; /result tells them apart', async () => {
    const s = await sim();
    const ok = await postSse(chatUrl(s.url), ask('Design a cache', { model: 'nsed:fast' }), {
      [FAULT]: 'end=bare-done',
    });
    expect(ok.data.at(-1)).toBe('[DONE]');
    expect(ok.chunks.some((c) => c.choices[0]?.finish_reason != null)).toBe(false);
    expect(ok.chunks.some((c) => c.choices[0]?.delta.content !== undefined)).toBe(true);
    expect(await statusOf(s.url, ok.headers.get('x-nsed-session-id') ?? '')).toBe('completed');
    const failed = await postSse(chatUrl(s.url), ask('Design a cache'), { [FAULT]: 'end=bare-done;fail-at-round=1' });
    expect(failed.data.at(-1)).toBe('[DONE]');
    expect(failed.chunks.some((c) => c.error !== undefined || c.choices[0]?.finish_reason != null)).toBe(false);
    expect(await statusOf(s.url, failed.headers.get('x-nsed-session-id') ?? '')).toMatch(/^failed: /);
  });

  it('end=close closes the streams of a job, replays included, with neither a closing chunk nor [DONE]', async () => {
    const s = await sim();
    const r = await postSse(chatUrl(s.url), ask('Design a cache', { model: 'nsed:fast' }), { [FAULT]: 'end=close' });
    expect(r.error).toBeUndefined();
    expect(r.done).toBe(false);
    expect(r.chunks.some((c) => c.choices[0]?.finish_reason != null)).toBe(false);
    const id = r.headers.get('x-nsed-session-id') ?? '';
    expect(await statusOf(s.url, id)).toBe('completed');
    const replay = await postSse(`${s.url}/deliberation/${id}/resume`, {});
    expect(replay.data).toEqual(r.data);
    expect(replay.done).toBe(false);
  });

  it('fail-at-round=N ends the stream with an error chunk and [DONE]; /result says failed (reliability #19)', async () => {
    const s = await sim();
    const r = await postSse(chatUrl(s.url), ask('Design a cache'), { [FAULT]: 'fail-at-round=2' });
    const errorChunk = r.chunks[r.chunks.length - 1];
    expect(errorChunk?.choices).toEqual([]);
    expect(errorChunk?.object).toBe('chat.completion.chunk');
    expect(errorChunk?.error).toEqual({
      message: 'deliberation failed: quorum lost in round 2 (simulated fault)',
      type: 'server_error',
      param: null,
      code: 'deliberation_failed',
    });
    expect(r.data[r.data.length - 1]).toBe('[DONE]');
    expect(r.chunks.filter((c) => c.choices[0]?.delta.nsed_round?.scored)).toHaveLength(1);
    expect(await statusOf(s.url, r.headers.get('x-nsed-session-id') ?? '')).toBe(
      'failed: quorum lost in round 2 (simulated fault)',
    );
  });

  it('fail-at-round on a non-streaming request answers 500 with an OpenAI-style error', async () => {
    const s = await sim();
    const res = await post(chatUrl(s.url), ask('Design a cache', { stream: false }), { [FAULT]: 'fail-at-round=1' });
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: { message: string; type: string } }).error).toMatchObject({
      message: /^deliberation failed/,
      type: 'server_error',
    });
  });

  it('fail-at-round also fails a native submission', async () => {
    const s = await sim();
    await post(
      `${s.url}/deliberation`,
      { room_id: 'r', user_query: 'q', agent_names: ['A', 'B'] },
      { [FAULT]: 'fail-at-round=1' },
    );
    await until(async () => (await statusOf(s.url, 'r')).startsWith('failed: quorum lost in round 1'));
  });
});

describe('status faults', () => {
  it('status=503 answers 503 before any job starts (reliability #46)', async () => {
    const s = await sim();
    const res = await post(chatUrl(s.url), ask('q'), { [FAULT]: 'status=503' });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/simulated fault/);
    expect(((await getJson(`${s.url}/deliberations`)).body as { jobs: unknown[] }).jobs).toEqual([]);
  });

  it('status=429;retry-after=1 answers 429 with a Retry-After header (reliability #45)', async () => {
    const s = await sim();
    const res = await post(chatUrl(s.url), ask('q'), { [FAULT]: 'status=429;retry-after=1' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('rate_limit_error');
  });

  it('times=N applies a server-wide fault to the first N matching requests only', async () => {
    const s = await sim({ faults: ['status=503;times=2'] });
    const codes: number[] = [];
    for (let i = 0; i < 3; i++)
      codes.push((await post(chatUrl(s.url), ask('q', { model: 'nsed:passthrough' }))).status);
    expect(codes).toEqual([503, 503, 200]);
  });

  it('answers a native route status fault with {"error": "..."}', async () => {
    const s = await sim({ faults: ['submit:status=503'] });
    const res = await post(`${s.url}/deliberation`, { room_id: 'r', user_query: 'q', agent_names: ['A', 'B'] });
    expect(res.status).toBe(503);
    expect(typeof ((await res.json()) as { error: unknown }).error).toBe('string');
  });
});

describe('fault scopes', () => {
  it('applies chat-scoped faults to chat only, and submit-scoped ones to submit only', async () => {
    const s = await sim({ faults: ['submit:status=503'] });
    expect((await post(chatUrl(s.url), ask('q', { model: 'nsed:passthrough' }))).status).toBe(200);
    expect(
      (await post(`${s.url}/deliberation`, { room_id: 'r', user_query: 'q', agent_names: ['A', 'B'] })).status,
    ).toBe(503);
    s.setFaults(['drop-after=2']);
    const dropped = await postSse(chatUrl(s.url), ask('q'));
    expect(dropped.data).toHaveLength(2);
    expect(
      (await post(`${s.url}/deliberation`, { room_id: 'r', user_query: 'q', agent_names: ['A', 'B'] })).status,
    ).toBe(202);
  });

  it('never faults /resume unless the fault is aimed there (reliability #38)', async () => {
    const s = await sim({ faults: ['drop-after=2'] });
    const cut = await postSse(chatUrl(s.url), ask('q'));
    const id = cut.headers.get('x-nsed-session-id') ?? '';
    const full = await postSse(`${s.url}/deliberation/${id}/resume`, '');
    expect(full.done).toBe(true);
    s.setFaults(['resume:drop-after=2']);
    expect((await postSse(`${s.url}/deliberation/${id}/resume`, '')).data).toHaveLength(2);
    s.setFaults(['all:drop-after=3']);
    expect((await postSse(`${s.url}/deliberation/${id}/resume`, '')).data).toHaveLength(3);
    s.setFaults([]);
    expect((await postSse(`${s.url}/deliberation/${id}/resume`, '', { [FAULT]: 'drop-after=1' })).data).toHaveLength(1);
    expect((await postSse(`${s.url}/deliberation/${id}/resume`, '')).done).toBe(true);
  });

  it('applies a header fault to its own request only', async () => {
    const s = await sim();
    expect(
      (await post(chatUrl(s.url), ask('q', { model: 'nsed:passthrough' }), { [FAULT]: 'status=500' })).status,
    ).toBe(500);
    expect((await post(chatUrl(s.url), ask('q', { model: 'nsed:passthrough' }))).status).toBe(200);
  });

  it('refuses an unreadable fault header with 400', async () => {
    const s = await sim();
    const res = await post(chatUrl(s.url), ask('q'), { [FAULT]: 'explode=1' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/unknown fault 'explode'/);
  });

  it('throws a usage error for bad server-wide faults, at start and from setFaults', async () => {
    await expect(startSim({ port: 0, faults: ['drop-after=zero'] })).rejects.toBeInstanceOf(NsedError);
    const s = await sim();
    expect(() => s.setFaults(['wat:status=1'])).toThrow(NsedError);
  });
});

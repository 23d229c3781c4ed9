import { describe, expect, it } from 'vitest';
import { ask, getJson, post, postSse, readSse, sim } from '../harness/sse.js';

describe('POST /deliberation/{id}/resume (protocol §3.12)', () => {
  it('replays a finished job event for event and byte for byte (reliability #33)', async () => {
    const s = await sim();
    const live = await postSse(`${s.url}/v1/chat/completions`, ask('Design a distributed cache'));
    const id = live.headers.get('x-nsed-session-id') ?? '';
    const resumed = await postSse(`${s.url}/deliberation/${id}/resume`, '');
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get('x-nsed-session-id')).toBe(id);
    expect(resumed.data).toEqual(live.data);
    expect(resumed.data[resumed.data.length - 1]).toBe('[DONE]');
  });

  it('replays the history of a running job, then follows its live tail to the same end', async () => {
    const s = await sim({ hold: true });
    const res = await post(`${s.url}/v1/chat/completions`, ask('Design a distributed cache', { model: 'nsed:deep' }));
    const id = res.headers.get('x-nsed-session-id') ?? '';
    const live = readSse(res);
    s.control.release(id, 3);
    await s.control.parked(id);
    const resuming = postSse(`${s.url}/deliberation/${id}/resume`, '');
    s.control.release(id);
    const resumed = await resuming;
    const whole = await live;
    expect(resumed.data).toEqual(whole.data);
    expect(resumed.data.length).toBeGreaterThan(20);
  });

  it('lets a client whose stream dropped skip the events it already applied (reliability #27)', async () => {
    const s = await sim({ roundMs: 5 });
    const cut = await postSse(`${s.url}/v1/chat/completions`, ask('Design a distributed cache'), {
      'x-nsed-sim-fault': 'drop-after=4',
    });
    expect(cut.data).toHaveLength(4);
    expect(cut.done).toBe(false);
    expect(cut.error).toBeDefined();
    const id = cut.headers.get('x-nsed-session-id') ?? '';
    const resumed = await postSse(`${s.url}/deliberation/${id}/resume`, '');
    expect(resumed.data.slice(0, 4)).toEqual(cut.data);
    expect(resumed.done).toBe(true);
  });

  it('replays a failed job with its error chunk and [DONE]', async () => {
    const s = await sim();
    const live = await postSse(`${s.url}/v1/chat/completions`, ask('q about caching'), {
      'x-nsed-sim-fault': 'fail-at-round=2',
    });
    const id = live.headers.get('x-nsed-session-id') ?? '';
    const resumed = await postSse(`${s.url}/deliberation/${id}/resume`, '');
    expect(resumed.data).toEqual(live.data);
    expect(resumed.chunks[resumed.chunks.length - 1]?.error?.message).toMatch(/^deliberation failed: /);
  });

  it('answers 404 not found for an unknown id (reliability #38)', async () => {
    const s = await sim();
    const res = await post(`${s.url}/deliberation/room-00000000/resume`, '');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'not found' });
  });

  it('answers 404 on /resume and /result once the history TTL has passed (reliability #38)', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const s = await sim({ historyTtlMs: 60_000, now: () => now });
    const live = await postSse(`${s.url}/v1/chat/completions`, ask('short lived', { model: 'nsed:fast' }));
    const id = live.headers.get('x-nsed-session-id') ?? '';
    now += 59_999;
    expect((await getJson(`${s.url}/deliberation/${id}/result`)).status).toBe(200);
    now += 1;
    expect((await post(`${s.url}/deliberation/${id}/resume`, '')).status).toBe(404);
    expect(await getJson(`${s.url}/deliberation/${id}/result`)).toEqual({ status: 404, body: { error: 'not found' } });
  });

  it('serves a native job in the same chunk format', async () => {
    const s = await sim();
    const sub = await post(`${s.url}/deliberation`, {
      room_id: 'thread-a_0011223344556677',
      user_query: 'What is the sound of one hand clapping?',
      agent_names: ['Corepunk01', 'Corepunk02'],
      deliberation_rounds: 2,
    });
    expect(sub.status).toBe(202);
    const r = await readSse(await post(`${s.url}/deliberation/thread-a_0011223344556677/resume`, ''));
    expect(r.chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', nsed_session_id: 'thread-a_0011223344556677' });
    const summaries = r.chunks.flatMap((c) =>
      c.choices[0]?.delta.nsed_round?.scored ? [c.choices[0].delta.nsed_round] : [],
    );
    expect(summaries.map((x) => x.round)).toEqual([1, 2]);
    expect(summaries[0]?.candidates.map((c) => c.agent_id)).toEqual(['Corepunk01', 'Corepunk02']);
    expect(r.done).toBe(true);
  });
});

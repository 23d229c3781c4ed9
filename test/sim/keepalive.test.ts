import { describe, expect, it } from 'vitest';
import { ask, post, postSse, readSse, sim } from '../harness/sse.js';

describe('keep-alive comments (protocol §4.7, reliability #29)', () => {
  it('sends ": keep-alive" while a stream is idle between phases', async () => {
    // Held after its first chunk, the stream is idle until the test has seen six comments.
    const s = await sim({ hold: true, keepaliveMs: 15 });
    const res = await post(`${s.url}/v1/chat/completions`, ask('Design a cache', { model: 'nsed:fast' }));
    const id = res.headers.get('x-nsed-session-id') ?? '';
    const r = await readSse(res, undefined, (_c, count) => {
      if (count === 6) s.control.release(id);
    });
    expect(r.done).toBe(true);
    expect(r.comments.length).toBeGreaterThanOrEqual(6);
    expect(new Set(r.comments.map((c) => c.trim()))).toEqual(new Set(['keep-alive']));
  });

  it('sends none when events arrive more often than the interval', async () => {
    const s = await sim({ roundMs: 2, keepaliveMs: 10_000 });
    const r = await postSse(`${s.url}/v1/chat/completions`, ask('Design a cache'));
    expect(r.done).toBe(true);
    expect(r.comments).toEqual([]);
  });
});

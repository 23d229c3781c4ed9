import { describe, expect, it } from 'vitest';
import { ask, postSse, sim } from './helpers.js';

describe('keep-alive comments (protocol §4.7, reliability #29)', () => {
  it('sends ": keep-alive" while a stream is idle between phases', async () => {
    const s = await sim({ roundMs: 80, keepaliveMs: 15 });
    const r = await postSse(`${s.url}/v1/chat/completions`, ask('Design a cache', { model: 'nsed:fast' }));
    expect(r.done).toBe(true);
    expect(r.comments.length).toBeGreaterThanOrEqual(6);
    expect(new Set(r.comments.map((c) => c.trim()))).toEqual(new Set(['keep-alive']));
  });

  it('sends none when events arrive more often than the interval', async () => {
    const s = await sim({ roundMs: 2, keepaliveMs: 200 });
    const r = await postSse(`${s.url}/v1/chat/completions`, ask('Design a cache'));
    expect(r.comments).toEqual([]);
  });
});

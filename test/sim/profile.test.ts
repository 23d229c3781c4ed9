import { describe, expect, it } from 'vitest';
import type { ChatCompletion, ChatCompletionChunk } from '../../src/protocol/wire.js';
import { DedupCache } from '../../src/sim/dedup.js';
import { parseFaultSpec } from '../../src/sim/faults.js';
import { Job } from '../../src/sim/job.js';
import { endingFor, parseProfile } from '../../src/sim/profile.js';
import { ask, deltas, getJson, post, readSse, sim } from '../harness/sse.js';

// Jobs here never advance on their own: a test releases them through sim.control.
const HELD = { hold: true };
const FAULT = 'x-nsed-sim-fault';
const THREAD = { 'x-opencode-session': 'ses_profile' };

const finishReasons = (chunks: readonly ChatCompletionChunk[]): unknown[] =>
  chunks.map((c) => c.choices[0]?.finish_reason ?? null).filter((f) => f !== null);

/** A job's stamp and info for tests that build Job objects directly. */
const stamp = { id: 'c', created: 0, model: 'nsed:*' };
const info = {
  query: 'q',
  agents: ['A', 'B'],
  totalRounds: 1,
  policy: 'p',
  mode: 'deliberation' as const,
  surface: 'compat' as const,
};

describe('profiles', () => {
  it('reads default and strict, and refuses anything else with the choices in the hint', () => {
    expect(parseProfile(undefined).name).toBe('default');
    expect(parseProfile('strict').name).toBe('strict');
    expect(() => parseProfile('lenient')).toThrow(/unknown simulator profile 'lenient'/);
  });

  it('strict picks the ending of each job from the seed and the job id: both endings occur, each repeatably', () => {
    const strict = parseProfile('strict');
    const endings = Array.from({ length: 16 }, (_, i) => endingFor(strict, 0, `room-${i}`));
    expect(new Set(endings)).toEqual(new Set(['bare-done', 'close']));
    expect(Array.from({ length: 16 }, (_, i) => endingFor(strict, 0, `room-${i}`))).toEqual(endings);
    expect(endingFor(parseProfile('default'), 0, 'room-1')).toBe('chunk');
    expect(endingFor(strict, 0, 'room-1', 'chunk')).toBe('chunk');
  });

  it('the end fault names one ending and refuses others', () => {
    expect(parseFaultSpec('end=close').end).toBe('close');
    expect(() => parseFaultSpec('end=explode')).toThrow(/fault 'end' is one of chunk, bare-done, close/);
  });
});

describe('endings of a cancelled or failed job (GAP: how such a stream ends)', () => {
  it.each([
    ['default', undefined, { done: true, finish: ['cancelled'] }],
    ['strict', 'end=bare-done', { done: true, finish: [] }],
    ['strict', 'end=close', { done: false, finish: [] }],
  ] as const)(
    '%s profile, %s: a cancelled stream ends as chosen, and /result says cancelled',
    async (profile, fault, want) => {
      const s = await sim({ ...HELD, profile });
      const res = await post(
        `${s.url}/v1/chat/completions`,
        ask('Design a cache'),
        fault === undefined ? {} : { [FAULT]: fault },
      );
      const id = res.headers.get('x-nsed-session-id') ?? '';
      const reading = readSse(res);
      s.control.release(id, 1);
      await s.control.phases(id, 1);
      expect((await post(`${s.url}/deliberation/${id}/cancel`, '')).status).toBe(200);
      const r = await reading;
      expect(r.done).toBe(want.done);
      expect(finishReasons(r.chunks)).toEqual(want.finish);
      expect(r.chunks.some((c) => 'error' in c)).toBe(false);
      expect(((await getJson(`${s.url}/deliberation/${id}/result`)).body as { status: string }).status).toBe(
        'failed: cancelled',
      );
      // A resume replays the same ending.
      const again = await readSse(await post(`${s.url}/deliberation/${id}/resume`, ''));
      expect(again.done).toBe(want.done);
    },
  );

  it('a failure ending chosen by the profile leaves completed jobs alone; the end fault applies to every outcome', async () => {
    const stop = {
      id: 'c',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'nsed:*',
      choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
    };
    const ok = new Job('ok', stamp, info, 'chunk', { failedEnding: 'close' });
    ok.end('completed', 'stop', { last: stop as ChatCompletionChunk });
    expect(ok.log.map((e) => e.data)).toEqual([JSON.stringify(stop), '[DONE]']);
    const failed = new Job('failed', stamp, info, 'chunk', { failedEnding: 'close' });
    failed.end('failed', 'error', { failure: 'boom', last: stop as ChatCompletionChunk });
    expect(failed.log).toEqual([{ data: '', content: false, close: true }]);
    // Over HTTP: strict with end=bare-done on a job that completes ends it with a bare [DONE].
    const s = await sim({ profile: 'strict' });
    const r = await readSse(
      await post(`${s.url}/v1/chat/completions`, ask('Design a cache', { model: 'nsed:fast' }), {
        [FAULT]: 'end=bare-done',
      }),
    );
    expect(r.done).toBe(true);
    expect(finishReasons(r.chunks)).toEqual([]);
    const plain = await readSse(
      await post(`${s.url}/v1/chat/completions`, ask('Design a queue', { model: 'nsed:fast' })),
    );
    expect(plain.done).toBe(true);
    expect(finishReasons(plain.chunks)).toEqual(['stop']);
  });

  it('strict, end=bare-done: a failed deliberation sends no error chunk and no finish reason, only [DONE]', async () => {
    const s = await sim({ profile: 'strict' });
    const r = await readSse(
      await post(`${s.url}/v1/chat/completions`, ask('Design a cache'), { [FAULT]: 'fail-at-round=1;end=bare-done' }),
    );
    expect(r.done).toBe(true);
    expect(finishReasons(r.chunks)).toEqual([]);
    expect(r.chunks.some((c) => 'error' in c)).toBe(false);
    const id = r.headers.get('x-nsed-session-id') ?? '';
    expect(((await getJson(`${s.url}/deliberation/${id}/result`)).body as { status: string }).status).toMatch(
      /^failed: quorum lost/,
    );
  });
});

describe('passthrough and moderator without a room (strict; GAP: session id for these modes)', () => {
  it.each(['nsed:passthrough', 'nsed:moderated'])(
    'strict %s: no session id anywhere, /deliberations does not list it',
    async (model) => {
      const s = await sim({ profile: 'strict' });
      const r = await readSse(await post(`${s.url}/v1/chat/completions`, ask('Title this chat', { model })));
      expect(r.done).toBe(true);
      expect(r.headers.get('x-nsed-session-id')).toBeNull();
      expect(deltas(r.chunks).some((d) => d.nsed_session_id !== undefined)).toBe(false);
      expect(((await getJson(`${s.url}/deliberations`)).body as { jobs: unknown[] }).jobs).toEqual([]);
    },
  );

  it("strict emits the rounds as reasoning_content, in words of its own (never the seed example's convergence line)", async () => {
    const s = await sim({ profile: 'strict' });
    const r = await readSse(await post(`${s.url}/v1/chat/completions`, ask('Pick a queue', { model: 'nsed:fast' })));
    const reasoning = deltas(r.chunks).flatMap((d) => (d.reasoning_content === undefined ? [] : [d.reasoning_content]));
    expect(reasoning).toContain('Proposals (round 1 of 1): CortexA, CortexB, CortexC');
    expect(reasoning.some((t) => /^Scored round 1 of 1; agreement \d\.\d\d$/.test(t))).toBe(true);
    expect(reasoning.join('\n')).not.toMatch(/complete\W+convergence/i);
  });

  it('strict: a blocking moderator answer carries nsed_metadata.mode and no session header', async () => {
    const s = await sim({ profile: 'strict' });
    const res = await post(
      `${s.url}/v1/chat/completions`,
      ask('Title this chat', { model: 'nsed:moderated', stream: false }),
    );
    expect(res.headers.get('x-nsed-session-id')).toBeNull();
    const body = (await res.json()) as ChatCompletion;
    expect(body.nsed_metadata).toEqual({ mode: 'moderator' });
  });

  it('default: a passthrough answer keeps a room that /result, /details and /resume know', async () => {
    const s = await sim();
    const r = await readSse(await post(`${s.url}/v1/chat/completions`, ask('hi', { model: 'nsed:passthrough' })));
    const id = r.headers.get('x-nsed-session-id') ?? '';
    expect(id).not.toBe('');
    for (const route of ['result', 'details'])
      expect((await getJson(`${s.url}/deliberation/${id}/${route}`)).status).toBe(200);
    expect((await post(`${s.url}/deliberation/${id}/resume`, '')).status).toBe(200);
  });
});

describe('/resume serves compat jobs only (strict; GAP: /resume for native jobs)', () => {
  it.each([
    ['default', 200],
    ['strict', 404],
  ] as const)('%s: /resume of a native job answers %i, while a compat job resumes in both', async (profile, status) => {
    const s = await sim({ ...HELD, profile });
    await post(`${s.url}/deliberation`, { room_id: 'native-1', user_query: 'q', agent_names: ['A', 'B'] });
    const native = await post(`${s.url}/deliberation/native-1/resume`, '');
    expect(native.status).toBe(status);
    await native.body?.cancel();
    const compat = await post(`${s.url}/v1/chat/completions`, ask('q'));
    await compat.body?.cancel();
    const resumed = await post(`${s.url}/deliberation/${compat.headers.get('x-nsed-session-id') ?? ''}/resume`, '');
    expect(resumed.status).toBe(200);
    await resumed.body?.cancel();
  });
});

describe('dedup (GAP: the key and the TTL)', () => {
  const sessionOf = async (url: string, body: unknown, headers: Record<string, string> = {}): Promise<string> => {
    const res = await post(`${url}/v1/chat/completions`, body, headers);
    await res.body?.cancel();
    return res.headers.get('x-nsed-session-id') ?? '';
  };

  it('on: an identical request while the job runs, and after it ended, is answered from the same job', async () => {
    const s = await sim({ ...HELD, dedup: true });
    const a = await sessionOf(s.url, ask('Design a cache'), THREAD);
    expect(await sessionOf(s.url, ask('Design a cache'), THREAD)).toBe(a);
    s.control.release(a);
    await s.control.ended(a);
    const replay = await readSse(await post(`${s.url}/v1/chat/completions`, ask('Design a cache'), THREAD));
    expect(replay.headers.get('x-nsed-session-id')).toBe(a);
    expect(replay.done).toBe(true);
    // The same job answers a blocking request too, without a second deliberation.
    const blocking = await post(`${s.url}/v1/chat/completions`, ask('Design a cache', { stream: false }), THREAD);
    expect(blocking.headers.get('x-nsed-session-id')).toBe(a);
    expect(((await getJson(`${s.url}/deliberations`)).body as { jobs: unknown[] }).jobs).toHaveLength(1);
  });

  it('on: another thread, model, message or tool set is a different request', async () => {
    const s = await sim({ ...HELD, dedup: true });
    const a = await sessionOf(s.url, ask('Design a cache'), THREAD);
    const others = [
      await sessionOf(s.url, ask('Design a cache'), { 'x-opencode-session': 'ses_other' }),
      await sessionOf(s.url, ask('Design a cache')),
      await sessionOf(s.url, ask('Design a cache', { model: 'nsed:deep' }), { 'x-opencode-session': 'ses_m' }),
      await sessionOf(s.url, ask('Design a queue'), { 'x-opencode-session': 'ses_q' }),
    ];
    expect(new Set([a, ...others]).size).toBe(5);
  });

  it('off (the default profile): an identical request on a thread whose job runs is routed as an injection', async () => {
    const s = await sim(HELD);
    const a = await sessionOf(s.url, ask('Design a cache'), THREAD);
    expect(await sessionOf(s.url, ask('Design a cache'), THREAD)).toBe(a);
    s.control.release(a);
    await s.control.ended(a);
    expect(await sessionOf(s.url, ask('Design a cache'), THREAD)).not.toBe(a);
  });

  it('strict has it on; --no-dedup (dedup: false) turns it off', async () => {
    const on = await sim({ ...HELD, profile: 'strict' });
    const a = await sessionOf(on.url, ask('Design a cache'));
    expect(await sessionOf(on.url, ask('Design a cache'))).toBe(a);
    const off = await sim({ ...HELD, profile: 'strict', dedup: false });
    const b = await sessionOf(off.url, ask('Design a cache'));
    expect(await sessionOf(off.url, ask('Design a cache'))).not.toBe(b);
  });

  it('a hit lives for the TTL after the job ended; a failed job is never a hit', async () => {
    let now = 1_000;
    const cache = new DedupCache(30_000, () => now);
    const ok = new Job('ok', stamp, info);
    cache.claim('k', ok);
    ok.end('completed', 'stop');
    await ok.finished;
    now += 29_999;
    expect(cache.hit('k')).toBe(ok);
    now += 1;
    expect(cache.hit('k')).toBeUndefined();
    const bad = new Job('bad', stamp, info);
    cache.claim('f', bad);
    expect(cache.hit('f')).toBe(bad);
    bad.end('failed', 'error', { failure: 'boom' });
    await bad.finished;
    expect(cache.hit('f')).toBeUndefined();
  });
});

describe('a changed policy on a thread whose job runs (seed policy-and-sessions)', () => {
  // Both profiles follow the seed: "a changed policy_id deliberately forces a fresh deliberation".
  it.each([
    ['default', 'starts a fresh job on the thread', false],
    ['strict', 'starts a fresh job on the thread', false],
  ] as const)('%s %s', async (profile, _what, same) => {
    const s = await sim({ ...HELD, profile });
    const first = await post(`${s.url}/v1/chat/completions`, ask('Design a cache', { model: 'nsed:deep' }), THREAD);
    const id = first.headers.get('x-nsed-session-id') ?? '';
    const firstStream = readSse(first);
    const title = await post(
      `${s.url}/v1/chat/completions`,
      ask('Title: Design a cache', { model: 'nsed:fast', stream: true }),
      THREAD,
    );
    const titleId = title.headers.get('x-nsed-session-id') ?? '';
    await title.body?.cancel();
    expect(titleId === id).toBe(same);
    s.control.releaseAll();
    await Promise.all(s.control.jobs().map((j) => s.control.ended(j.jobId)));
    const injected = deltas((await firstStream).chunks).filter((d) => d.nsed_injected !== undefined);
    expect(injected).toHaveLength(same ? 1 : 0);
    // The same policy on the thread still injects in both profiles.
    if (!same)
      expect(((await getJson(`${s.url}/deliberation/${titleId}/result`)).body as { status: string }).status).toBe(
        'completed',
      );
  });

  it.each(['default', 'strict'] as const)(
    '%s: the same policy on the thread still injects into the running job',
    async (profile) => {
      const s = await sim({ ...HELD, profile });
      const first = await post(`${s.url}/v1/chat/completions`, ask('Design a cache', { model: 'nsed:deep' }), THREAD);
      const id = first.headers.get('x-nsed-session-id') ?? '';
      await first.body?.cancel();
      const follow = await post(
        `${s.url}/v1/chat/completions`,
        {
          model: 'nsed:deep',
          stream: true,
          messages: [
            { role: 'user', content: 'Design a cache' },
            { role: 'user', content: 'Focus on safety' },
          ],
        },
        THREAD,
      );
      expect(follow.headers.get('x-nsed-session-id')).toBe(id);
      await follow.body?.cancel();
    },
  );
});

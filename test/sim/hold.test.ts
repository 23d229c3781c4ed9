// The simulator's test control: a held deliberation waits at each phase boundary until the
// test releases it, on both API paths, and through inject, cancel and resume.
import { describe, expect, it } from 'vitest';
import type { PhaseEvent } from '../../src/sim/hold.js';
import { ask, deltas, getJson, post, postSse, readSse, sim, withoutIds } from '../harness/sse.js';

const chat = (url: string): string => `${url}/v1/chat/completions`;
const native = {
  room_id: 'room-00c0ffee',
  conversation_id: 'thread-hold',
  agent_names: ['A1', 'A2'],
  deliberation_rounds: 2,
  user_query: 'Pick a queue',
};

describe('a held deliberation on the compat path', () => {
  it('sends only the chunk naming the job, runs one phase per release, and ends as an unheld run does', async () => {
    const free = await sim({ seed: 7 });
    const reference = await postSse(chat(free.url), ask('Design a cache', { model: 'nsed:fast' }));

    const s = await sim({ seed: 7, hold: true });
    const res = await post(chat(s.url), ask('Design a cache', { model: 'nsed:fast' }));
    const id = res.headers.get('x-nsed-session-id') ?? '';
    const seen: string[] = [];
    const reading = readSse(res, (d) => seen.push(d));
    expect(await s.control.nextJob()).toBe(id);
    expect(await s.control.parked(id)).toMatchObject({ jobId: id, held: true, phases: 0, parked: true, ended: false });
    expect(seen.length).toBeLessThanOrEqual(1);
    expect(((await getJson(`${s.url}/deliberation/${id}/result`)).body as { status: string }).status).toBe('running');

    const phases: PhaseEvent[] = [];
    s.control.on('phase', (p) => phases.push(p));
    s.control.release(id, 1);
    expect(await s.control.parked(id)).toMatchObject({ phases: 1, parked: true });
    expect(phases).toEqual([{ jobId: id, count: 1, kind: 'propose', round: 1 }]);
    s.control.release(id);
    expect(await s.control.ended(id)).toMatchObject({ held: false, phases: 3, ended: true, parked: false });
    expect(phases.map((p) => p.kind)).toEqual(['propose', 'evaluate', 'answer']);
    const r = await reading;
    expect(r.done).toBe(true);
    expect(withoutIds(r.data)).toEqual(withoutIds(reference.data));
  });

  it('leaves instant policies (passthrough) alone', async () => {
    const s = await sim({ hold: true });
    const r = await postSse(chat(s.url), ask('hi', { model: 'nsed:passthrough' }));
    expect(r.done).toBe(true);
    const id = await s.control.nextJob();
    expect(s.control.job(id)).toMatchObject({ held: false, ended: true });
  });
});

describe('a held deliberation on the native path', () => {
  it('is running until released, phase by phase, and then answers /result', async () => {
    const s = await sim({ hold: true });
    expect((await post(`${s.url}/deliberation`, native)).status).toBe(202);
    const id = await s.control.nextJob();
    expect(id).toBe(native.room_id);
    for (let n = 1; n <= 4; n++) {
      s.control.release(id, 1);
      expect(await s.control.parked(id)).toMatchObject({ phases: n, parked: true, ended: false });
    }
    expect((await getJson(`${s.url}/deliberation/${id}/result`)).body).toMatchObject({
      status: 'running',
      result: null,
    });
    s.control.release(id, 1);
    expect(await s.control.ended(id)).toMatchObject({ phases: 5 });
    expect((await getJson(`${s.url}/deliberation/${id}/result`)).body).toMatchObject({ status: 'completed' });
  });

  it('takes an injection at the boundary where it waits, and cancel ends it there', async () => {
    const s = await sim({ hold: true });
    await post(`${s.url}/deliberation`, native);
    const id = await s.control.nextJob();
    s.control.release(id, 2);
    await s.control.phases(id, 2);
    const ack = await post(`${s.url}/deliberation/${id}/inject`, { message: 'Prefer the simplest queue' });
    expect(await ack.json()).toEqual({ sequence: 1, injected_at_round: 2 });
    expect(await s.control.injected(id)).toMatchObject({ injected: 1, phases: 2, ended: false });
    s.control.release(id, 1);
    await s.control.parked(id);
    expect((await post(`${s.url}/deliberation/${id}/cancel`, '')).status).toBe(200);
    expect(await s.control.ended(id)).toMatchObject({ phases: 3, ended: true, parked: false });
    const replay = await readSse(await post(`${s.url}/deliberation/${id}/resume`, ''));
    const kinds = deltas(replay.chunks).map((d) =>
      d.nsed_injected ? 'injected' : d.nsed_round?.scored === true ? 'scored' : '',
    );
    expect(kinds.filter(Boolean)).toEqual(['scored', 'injected']);
    expect(replay.chunks.at(-1)?.choices[0]?.finish_reason).toBe('cancelled');
    // Releasing a job that ended is harmless.
    s.control.release(id);
  });

  it('a resume of a held job replays its history and follows the tail once released', async () => {
    const s = await sim({ hold: true });
    await post(`${s.url}/deliberation`, native);
    const id = await s.control.nextJob();
    s.control.release(id, 2);
    await s.control.parked(id);
    const first = readSse(await post(`${s.url}/deliberation/${id}/resume`, ''));
    const second = readSse(await post(`${s.url}/deliberation/${id}/resume`, ''));
    s.control.release(id);
    const [a, b] = await Promise.all([first, second]);
    expect(a.done).toBe(true);
    expect(b.data).toEqual(a.data);
  });

  it('hands jobs out in the order they started, also to a test that asked first', async () => {
    const s = await sim({ hold: true });
    const asked = [s.control.nextJob(), s.control.nextJob()];
    await post(`${s.url}/deliberation`, { ...native, room_id: 'room-first' });
    await post(`${s.url}/deliberation`, { ...native, room_id: 'room-second' });
    expect(await Promise.all(asked)).toEqual(['room-first', 'room-second']);
    s.control.releaseAll();
    await Promise.all([s.control.ended('room-first'), s.control.ended('room-second')]);
    await post(`${s.url}/deliberation`, { ...native, room_id: 'room-third' });
    expect(await s.control.ended(await s.control.nextJob())).toMatchObject({ jobId: 'room-third', held: false });
  });
});

describe('the /_sim/ control routes', () => {
  it('drive a held job over HTTP, unrecorded and unauthenticated, and refuse bad requests', async () => {
    const s = await sim({ hold: true, token: 'secret' });
    const auth = { authorization: 'Bearer secret' };
    const next = getJson(`${s.url}/_sim/next-job`);
    await post(`${s.url}/deliberation`, native, auth);
    const { jobId } = (await next).body as { jobId: string };
    expect(jobId).toBe(native.room_id);
    expect((await post(`${s.url}/_sim/jobs/${jobId}/release`, { phases: 2 })).status).toBe(200);
    expect((await getJson(`${s.url}/_sim/jobs/${jobId}/wait?for=phases&count=2`)).body).toMatchObject({ phases: 2 });
    expect((await getJson(`${s.url}/_sim/jobs/${jobId}/wait?for=parked`)).body).toMatchObject({
      parked: true,
      ended: false,
    });
    expect((await getJson(`${s.url}/_sim/jobs`)).body).toEqual({
      hold: true,
      running: 1,
      peak: 1,
      started: 1,
      jobs: [expect.objectContaining({ jobId, phases: 2 })],
    });

    expect((await post(`${s.url}/_sim/jobs/${jobId}/release`, { phases: 0 })).status).toBe(400);
    expect((await post(`${s.url}/_sim/jobs/${jobId}/release`, '[1]')).status).toBe(400);
    expect((await getJson(`${s.url}/_sim/jobs/${jobId}/wait?for=soon`)).status).toBe(400);
    expect((await post(`${s.url}/_sim/jobs/nope/release`, {})).status).toBe(404);
    expect((await getJson(`${s.url}/_sim/nothing`)).status).toBe(404);

    expect((await post(`${s.url}/_sim/hold`, { hold: false })).body).toBeDefined();
    expect((await post(`${s.url}/_sim/jobs/${jobId}/release`, '')).status).toBe(200);
    expect((await getJson(`${s.url}/_sim/jobs/${jobId}/wait?for=ended`)).body).toMatchObject({ ended: true });
    expect(s.control.hold).toBe(false);
    expect(s.requests.map((q) => q.path)).toEqual(['/deliberation']);
  });

  it('count the jobs running at once and the peak since start, for batch tests', async () => {
    const s = await sim({ hold: true });
    const stats = async () => (await getJson(`${s.url}/_sim/stats`)).body;
    expect(await stats()).toEqual({ running: 0, peak: 0, started: 0 });
    for (const room of ['room-c1', 'room-c2', 'room-c3'])
      await post(`${s.url}/deliberation`, { ...native, room_id: room });
    expect(await stats()).toEqual({ running: 3, peak: 3, started: 3 });
    s.control.release('room-c1');
    await s.control.ended('room-c1');
    expect(await stats()).toEqual({ running: 2, peak: 3, started: 3 });
    // An instant answer starts and ends at once: counted, never running for long.
    await post(`${s.url}/v1/chat/completions`, {
      model: 'nsed:passthrough',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(await stats()).toEqual({ running: 2, peak: 3, started: 4 });
    s.control.releaseAll();
    await Promise.all(['room-c2', 'room-c3'].map((r) => s.control.ended(r)));
    expect(s.control.stats()).toEqual({ running: 0, peak: 3, started: 4 });
  });

  it('are not served unless the simulator holds', async () => {
    const s = await sim();
    expect((await getJson(`${s.url}/_sim/jobs`)).status).toBe(404);
    expect((await post(`${s.url}/_sim/release`, '')).status).toBe(404);
  });
});

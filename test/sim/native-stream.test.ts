import { describe, expect, it } from 'vitest';
import { getJson, post, sim } from '../harness/sse.js';
import { openNative } from './native-events.js';

// Jobs never advance on their own here; the test releases them phase by phase (sim.control).
const HELD = { hold: true };

const submit = (url: string, room: string) =>
  post(`${url}/deliberation`, {
    room_id: room,
    user_query: 'Design a queue',
    agent_names: ['A1', 'B2'],
    deliberation_rounds: 2,
  });

describe('GET /job/{id}/stream: native named events', () => {
  it('sends connected, then each phase as named events, and job_complete with the /result answer; then it ends', async () => {
    const s = await sim(HELD);
    await submit(s.url, 'room-n1');
    const stream = await openNative(s.url, 'room-n1');
    expect(stream.res.headers.get('content-type')).toBe('text/event-stream');
    await stream.until(() => stream.events.length >= 1);
    s.control.release('room-n1');
    await stream.done;
    const names = stream.names();
    expect(names[0]).toBe('connected');
    expect(stream.events[0]?.data).toBe('ok');
    expect(names.slice(1, 5)).toEqual(['round_start', 'agent_working', 'agent_working', 'proposal_submitted']);
    expect(names.filter((n) => n === 'round_summary')).toHaveLength(2);
    expect(names.filter((n) => n === 'round_complete')).toHaveLength(2);
    expect(names.filter((n) => n === 'evaluation_submitted')).toHaveLength(4);
    expect(names.at(-1)).toBe('job_complete');
    const summary = stream.events.find((e) => e.event === 'round_summary')?.data as {
      convergence_score: number;
      proposal_scores: Array<{ agent_id: string }>;
    };
    expect(summary.proposal_scores.map((p) => p.agent_id)).toEqual(['A1', 'B2']);
    const complete = stream.events.at(-1)?.data as {
      status: string;
      job_id: string;
      rounds_completed: number;
      best_proposal_content: string;
    };
    const result = (await getJson(`${s.url}/deliberation/room-n1/result`)).body as { result: string };
    expect(complete).toMatchObject({
      status: 'Success',
      job_id: 'room-n1',
      rounds_completed: 2,
      best_proposal_content: result.result,
    });
  });

  it('is live only: an attach after round 1 sees no round 1 events', async () => {
    const s = await sim(HELD);
    await submit(s.url, 'room-n2');
    s.control.release('room-n2', 2);
    await s.control.parked('room-n2');
    expect(s.control.job('room-n2')).toMatchObject({ phases: 2, ended: false });
    const stream = await openNative(s.url, 'room-n2');
    await stream.until(() => stream.events.length >= 1);
    s.control.release('room-n2');
    await stream.done;
    const rounds = stream.events
      .filter((e) => e.event === 'round_start')
      .map((e) => (e.data as { round: number }).round);
    expect(rounds).toEqual([2]);
  });

  it('after the job ended, a late attach gets connected and keepalive events, never job_complete', async () => {
    const s = await sim({ keepaliveMs: 20 });
    await submit(s.url, 'room-n3');
    await s.control.ended('room-n3');
    expect(((await getJson(`${s.url}/deliberation/room-n3/result`)).body as { status: string }).status).toBe(
      'completed',
    );
    const stream = await openNative(s.url, 'room-n3');
    await stream.until(() => stream.events.filter((e) => e.event === 'keepalive').length >= 2);
    await stream.close();
    expect(new Set(stream.names())).toEqual(new Set(['connected', 'keepalive']));
  });

  it('reports an injection as user_injection and a cancel as a failed job_complete', async () => {
    const s = await sim(HELD);
    await submit(s.url, 'room-n4');
    const stream = await openNative(s.url, 'room-n4');
    await stream.until(() => stream.events.length >= 1);
    await post(`${s.url}/deliberation/room-n4/inject`, { message: 'Focus on safety' });
    await post(`${s.url}/deliberation/room-n4/cancel`, '');
    await stream.done;
    expect(stream.events.find((e) => e.event === 'user_injection')?.data).toMatchObject({
      message: 'Focus on safety',
      sequence: 1,
    });
    expect(stream.events.at(-1)).toMatchObject({ event: 'job_complete', data: { status: 'Failed: cancelled' } });
  });

  it('answers 404 for an unknown job', async () => {
    const s = await sim();
    expect((await fetch(`${s.url}/job/nope/stream`)).status).toBe(404);
  });
});

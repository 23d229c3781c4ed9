// reconcilePending for the endings test/turn/turn-functions.test.ts does not set up: a job
// cancelled on the orchestrator and a job its history TTL has dropped. The simulator's control
// and injected clock decide each state; nothing waits for it.
import { afterEach, describe, expect, it } from 'vitest';
import type { Session } from '../../src/session/model.js';
import { reconcilePending } from '../../src/turn/reconcile.js';
import { contextRig, type ContextRig } from '../harness/context-rig.js';
import { post } from '../harness/sse.js';
import { session, turn } from '../harness/temp-store.js';

let rig: ContextRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** A stored session whose pending marker names a native job the held simulator started. */
async function pendingOn(r: ContextRig, room: string): Promise<Session> {
  const body = {
    room_id: room,
    conversation_id: 'thread-r',
    agent_names: ['A1', 'A2'],
    deliberation_rounds: 1,
    user_query: 'Pick a queue',
  };
  expect((await post(`${r.sim.url}/deliberation`, body)).status).toBe(202);
  const saved = session('r1', {
    turns: [turn('u1')],
    pending_job: {
      job_id: room,
      turn: 'u1',
      path: 'native',
      policy: 'nsed:native',
      started: '2026-02-02T10:00:00.000Z',
    },
  });
  await r.store.create(saved);
  return saved;
}

describe('reconcilePending on jobs that ended without an answer', () => {
  it('records a cancelled job as a cancelled turn, without inventing an answer', async () => {
    rig = await contextRig({ sim: { hold: true } });
    const saved = await pendingOn(rig, 'room-cancelled');
    expect((await post(`${rig.sim.url}/deliberation/room-cancelled/cancel`, '')).status).toBe(200);
    expect(await reconcilePending(rig.ctx, rig.conn, saved)).toBe('cleared');
    const after = await rig.store.read('r1');
    expect(after.pending_job).toBeUndefined();
    expect(after.turns.filter((t) => t.role === 'assistant')).toMatchObject([
      { job_id: 'room-cancelled', status: 'cancelled', content: '' },
    ]);
  });

  it('clears the marker of a finished job once the orchestrator forgot it (history TTL passed)', async () => {
    let now = Date.parse('2026-02-02T10:00:00.000Z');
    rig = await contextRig({ sim: { hold: true, historyTtlMs: 60_000, now: () => now } });
    const saved = await pendingOn(rig, 'room-gone');
    rig.sim.control.release('room-gone');
    await rig.sim.control.ended('room-gone');
    now += 60_000;
    expect(await reconcilePending(rig.ctx, rig.conn, saved)).toBe('cleared');
    expect((await rig.store.read('r1')).pending_job).toBeUndefined();
  });
});

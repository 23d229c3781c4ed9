// reconcilePending at its own level: a real client, a held simulator and a temp store; the
// job's state is set by the simulator's control, not by waiting for it.
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type NsedClient } from '../../src/api/client.js';
import { reconcilePending } from '../../src/commands/shared/reconcile.js';
import { openFileStore } from '../../src/session/file-store.js';
import type { Session } from '../../src/session/model.js';
import type { SimServer } from '../../src/sim/server.js';
import { post, sim } from '../harness/sse.js';
import { session, tempHome, turn } from '../harness/temp-store.js';

const NOW = new Date('2026-02-02T10:00:00.000Z');
const zeros = (n: number): string => '0'.repeat(n * 2);
const clients: NsedClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

/** A session whose pending marker names a native job the held simulator has started. */
async function pendingOn(s: SimServer, room: string): Promise<{ client: NsedClient; store: ReturnType<typeof openFileStore>; saved: Session }> {
  const client = createClient({ baseUrl: s.url, idleTimeoutMs: 60_000 });
  clients.push(client);
  const store = openFileStore(await tempHome());
  const body = { room_id: room, conversation_id: 'thread-r', agent_names: ['A1', 'A2'], deliberation_rounds: 1, user_query: 'Pick a queue' };
  expect((await post(`${s.url}/deliberation`, body)).status).toBe(202);
  const saved = session('r1', {
    turns: [turn('u1')],
    pending_job: { job_id: room, turn: 'u1', path: 'native', policy: 'nsed:native', started: NOW.toISOString() },
  });
  await store.create(saved);
  return { client, store, saved };
}

describe('reconcilePending', () => {
  it('reports a held job as running and keeps the marker', async () => {
    const s = await sim({ hold: true });
    const { client, store, saved } = await pendingOn(s, 'room-running');
    expect(await reconcilePending(client, store, saved, zeros, () => NOW)).toBe('running');
    expect((await store.read('r1')).pending_job?.job_id).toBe('room-running');
  });

  it('records the answer of a job that finished, once, and clears the marker', async () => {
    const s = await sim({ hold: true });
    const { client, store, saved } = await pendingOn(s, 'room-done');
    s.control.release('room-done');
    await s.control.ended('room-done');
    expect(await reconcilePending(client, store, saved, zeros, () => NOW)).toBe('recorded');
    const after = await store.read('r1');
    expect(after.pending_job).toBeUndefined();
    expect(after.turns.filter((t) => t.role === 'assistant')).toEqual([
      expect.objectContaining({ status: 'complete', job_id: 'room-done', ts: NOW.toISOString(), content: expect.stringMatching(/^## /) }),
    ]);
    // A second settle of the same (now stale) snapshot records nothing twice.
    await reconcilePending(client, store, saved, zeros, () => NOW);
    expect((await store.read('r1')).turns.filter((t) => t.role === 'assistant')).toHaveLength(1);
  });

  it('clears the marker of a cancelled job without inventing an answer', async () => {
    const s = await sim({ hold: true });
    const { client, store, saved } = await pendingOn(s, 'room-cancelled');
    expect((await post(`${s.url}/deliberation/room-cancelled/cancel`, '')).status).toBe(200);
    expect(await reconcilePending(client, store, saved, zeros, () => NOW)).toBe('cleared');
    const after = await store.read('r1');
    expect(after.pending_job).toBeUndefined();
    expect(after.turns.filter((t) => t.role === 'assistant')).toEqual([]);
  });

  it('clears the marker of a job the orchestrator forgot (its history TTL passed)', async () => {
    let now = NOW.getTime();
    const s = await sim({ hold: true, historyTtlMs: 60_000, now: () => now });
    const { client, store, saved } = await pendingOn(s, 'room-gone');
    s.control.release('room-gone');
    await s.control.ended('room-gone');
    now += 60_000;
    expect(await reconcilePending(client, store, saved, zeros, () => NOW)).toBe('cleared');
    expect((await store.read('r1')).pending_job).toBeUndefined();
  });
});

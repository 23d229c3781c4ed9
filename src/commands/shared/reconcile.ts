import type { NsedClient } from '../../api/client.js';
import { toNsedError } from '../../errors.js';
import { statusWord } from '../../protocol/job-status.js';
import { upsertAssistantTurn } from '../../session/lineage.js';
import { newTurnId } from '../../session/ids.js';
import type { Session } from '../../session/model.js';
import type { SessionStore } from '../../session/store.js';

export type Reconciled = 'none' | 'recorded' | 'cleared' | 'running';

/**
 * Settles a session's pending job through GET /result, as the reference client's
 * reconcile_decision does (protocol.md §3.4): record a finished answer, clear a marker whose
 * job failed or is gone, report a job still running. Any other failure keeps the marker and is
 * raised, since nothing can be decided while the orchestrator does not answer.
 */
export async function reconcilePending(
  client: NsedClient,
  store: SessionStore,
  session: Session,
  randomHex: (bytes: number) => string,
  now: () => Date,
): Promise<Reconciled> {
  const pending = session.pending_job;
  if (pending === undefined) return 'none';
  let status: string;
  let result: string | null;
  try {
    const r = await client.result(pending.job_id);
    status = statusWord(r.status);
    result = r.result;
  } catch (err) {
    const e = toNsedError(err);
    if (e.code === 'not_found') {
      await clearPending(store, session.id, pending.job_id, 'the orchestrator no longer knows this deliberation');
      return 'cleared';
    }
    throw e;
  }
  if (status === 'completed') {
    const text = result?.trim() ?? '';
    if (text === '') {
      await clearPending(store, session.id, pending.job_id);
      return 'cleared';
    }
    await store.update(session.id, (s) => {
      upsertAssistantTurn(s, {
        id: newTurnId(randomHex),
        role: 'assistant',
        kind: 'message',
        content: text,
        status: 'complete',
        ts: now().toISOString(),
        policy_id: pending.policy,
        job_id: pending.job_id,
        path: pending.path,
        finish_reason: 'stop',
      });
      if (s.pending_job?.job_id === pending.job_id) delete s.pending_job;
    });
    return 'recorded';
  }
  if (status.startsWith('failed')) {
    await clearPending(store, session.id, pending.job_id);
    return 'cleared';
  }
  return 'running';
}

async function clearPending(store: SessionStore, id: string, jobId: string, why?: string): Promise<void> {
  await store.update(id, (s) => {
    if (s.pending_job?.job_id === jobId) delete s.pending_job;
    const turn = s.turns.find((t) => t.role === 'assistant' && t.job_id === jobId);
    if (turn !== undefined && turn.status === 'complete') return;
    if (turn !== undefined && why !== undefined) turn.error = why;
  });
}

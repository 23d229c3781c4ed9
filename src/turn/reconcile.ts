import { PassThrough } from 'node:stream';
import type { Connection } from '../run/connection.js';
import { innerGlobals, type Context } from '../run/context.js';
import { upsertAssistantTurn } from '../session/index.js';
import { newTurnId } from '../session/index.js';
import type { PendingJob, Session, TurnStatus } from '../session/index.js';
import type { SessionStore } from '../session/index.js';
import { askJobState, followStart, type JobState } from './follow/job-result.js';
import type { IO } from '../terminal/io.js';

export type Reconciled = 'none' | 'recorded' | 'cleared' | 'running';

// The refusal lives with the turn lease, which reconcile's replay reaches through execute-turn.
export { runningConflict } from './idempotency/claim.js';

export const GONE_REASON = 'the orchestrator no longer knows this deliberation';

/**
 * Settles a session's pending job before a new turn (continue) or after a refused inject or
 * cancel: record a finished answer, record a job that failed or was cancelled as such, clear a
 * marker whose job is gone, report a job still running.
 */
export async function reconcilePending(ctx: Context, conn: Connection, session: Session): Promise<Reconciled> {
  const pending = session.pending_job;
  if (pending === undefined) return 'none';
  const store = await ctx.store();
  const state = await askJobState(conn.client, pending.job_id);
  switch (state.kind) {
    case 'gone':
      await clearPending(store, session.id, pending.job_id, GONE_REASON);
      return 'cleared';
    case 'failed':
      await recordJobEnd(ctx, store, session.id, pending, 'failed', `deliberation failed: ${state.reason}`);
      return 'cleared';
    case 'cancelled':
      await recordJobEnd(ctx, store, session.id, pending, 'cancelled', 'deliberation was cancelled');
      return 'cleared';
    case 'running':
      return 'running';
    case 'completed':
      break;
  }
  if (state.answer === '') {
    await clearPending(store, session.id, pending.job_id);
    return 'cleared';
  }
  if (await recordReplayed(ctx, conn, session, pending, state)) return 'recorded';
  await store.update(session.id, (s) => {
    upsertAssistantTurn(s, {
      id: newTurnId(ctx.randomHex),
      role: 'assistant',
      kind: 'message',
      content: state.answer,
      status: 'complete',
      ts: ctx.clock.now().toISOString(),
      policy_id: pending.policy,
      job_id: pending.job_id,
      path: pending.path,
      finish_reason: 'stop',
    });
    if (s.pending_job?.job_id === pending.job_id) delete s.pending_job;
  });
  return 'recorded';
}

/**
 * An ended job whose server keeps its history is recorded as a run that stayed connected would
 * have recorded it, rounds and verdict included (docs/reliability.md #200): the same follow as
 * `nsed resume`, its output going nowhere, since this command prints its own turn. False when
 * the job cannot be replayed (a native job, or the replay failed): the answer alone is recorded.
 */
async function recordReplayed(
  ctx: Context,
  conn: Connection,
  session: Session,
  pending: PendingJob,
  state: JobState,
): Promise<boolean> {
  const how = followStart(pending.job_id, state);
  if (how?.start.kind !== 'attach') return false;
  const sink = new PassThrough();
  sink.resume();
  const io: IO = { ...ctx.io, stdout: sink, stderr: sink, stdoutIsTTY: false, stderrIsTTY: false, quiet: true };
  const silent: Context = { ...ctx, io, globals: innerGlobals(ctx.globals, 'json', true) };
  const { followPending } = await import('./execute-turn.js');
  try {
    await followPending(silent, conn, session, pending, how.start);
    return true;
  } catch {
    // The replay is a better record, not the only one: the answer /result gave still stands.
    return false;
  }
}

/** Drops the marker of a job that is over; `why` is noted on a turn an earlier run left unfinished. */
export async function clearPending(store: SessionStore, id: string, jobId: string, why?: string): Promise<void> {
  await store.update(id, (s) => {
    if (s.pending_job?.job_id === jobId) delete s.pending_job;
    const turn = s.turns.find((t) => t.role === 'assistant' && t.job_id === jobId);
    if (turn !== undefined && turn.status === 'complete') return;
    if (turn !== undefined && why !== undefined) turn.error = why;
  });
}

/**
 * Records that a pending job ended without an answer (failed or cancelled): its assistant turn
 * keeps what an earlier run showed, takes the new status, and the marker is dropped, in one
 * locked write.
 */
export async function recordJobEnd(
  ctx: Pick<Context, 'randomHex' | 'clock'>,
  store: SessionStore,
  id: string,
  pending: PendingJob,
  status: Extract<TurnStatus, 'failed' | 'cancelled'>,
  error?: string,
): Promise<void> {
  await store.update(id, (s) => {
    if (s.pending_job?.job_id === pending.job_id) delete s.pending_job;
    const existing = s.turns.find((t) => t.role === 'assistant' && t.job_id === pending.job_id);
    upsertAssistantTurn(s, {
      ...(existing ?? {}),
      id: existing?.id ?? newTurnId(ctx.randomHex),
      role: 'assistant',
      kind: 'message',
      content: existing?.content ?? '',
      status,
      ts: ctx.clock.now().toISOString(),
      policy_id: pending.policy,
      job_id: pending.job_id,
      path: pending.path,
      ...(error === undefined ? {} : { error }),
    });
  });
}

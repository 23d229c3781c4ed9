import { NsedError, toNsedError } from '../../errors.js';
import { upsertInjection, newTurnId, type PendingJob, type Session } from '../../session/index.js';
import { isLiveStatus } from '../../protocol/job-status.js';
import { buildChatRequest } from '../build-request.js';
import { sanitizeForTerminal } from '../../terminal/sanitize.js';
import type { Connection } from '../../run/connection.js';
import type { Context } from '../../run/context.js';
import { followPending } from '../execute-turn.js';
import { reconcilePending } from '../reconcile.js';

/** Where the orchestrator placed the message; unknown (null) through the compat fallback. */
export interface Placed {
  sequence: number | null;
  round: number | null;
}

export type Injected =
  | { kind: 'acknowledged'; pending: PendingJob; placed: Placed }
  | { kind: 'answered'; pending: PendingJob; placed: Placed };

/**
 * Sends guidance into the session's running job. The native inject route is preferred; an
 * orchestrator without it (404/405 on the route while /result shows the job running) gets the
 * compat routing rule instead: the same x-opencode-session, which injects into the live job.
 */
export async function injectMessage(
  ctx: Context,
  conn: Connection,
  session: Session,
  message: string,
  how: { wait: boolean },
): Promise<Injected> {
  const pending = session.pending_job;
  if (pending === undefined) throw nothingRunning(session.id);
  let ack;
  try {
    ack = await conn.client.inject(pending.job_id, message, { signal: ctx.signal });
  } catch (err) {
    const e = toNsedError(err);
    if (e.code === 'conflict') {
      // The job ended before the message landed: record its answer if there is one.
      await reconcilePending(ctx, conn, session);
      throw nothingRunning(session.id);
    }
    if (e.code !== 'not_found' && e.status !== 405) throw e;
    return compatFallback(ctx, conn, session, pending, message, how);
  }
  await recordInjection(ctx, session.id, pending.job_id, message, {
    round: ack.injected_at_round,
    sequence: ack.sequence,
  });
  return { kind: 'acknowledged', pending, placed: { sequence: ack.sequence, round: ack.injected_at_round } };
}

const UNPLACED: Placed = { sequence: null, round: null };

async function recordInjection(
  ctx: Context,
  sessionId: string,
  jobId: string,
  message: string,
  placed: { round: number; sequence: number } | undefined,
): Promise<void> {
  await (
    await ctx.store()
  ).update(sessionId, (s) => {
    upsertInjection(s, {
      id: newTurnId(ctx.randomHex),
      role: 'user',
      kind: 'injection',
      content: message,
      status: 'complete',
      ts: ctx.clock.now().toISOString(),
      job_id: jobId,
      ...placed,
    });
  });
}

async function compatFallback(
  ctx: Context,
  conn: Connection,
  session: Session,
  pending: PendingJob,
  message: string,
  { wait }: { wait: boolean },
): Promise<Injected> {
  const result = await conn.client.result(pending.job_id, { signal: ctx.signal }).catch(() => undefined);
  if (result === undefined || !isLiveStatus(result.status)) throw nothingRunning(session.id);
  const withMessage: Session = {
    ...session,
    turns: [
      ...session.turns,
      {
        id: 'inject',
        role: 'user',
        kind: 'injection',
        content: message,
        status: 'complete',
        ts: ctx.clock.now().toISOString(),
      },
    ],
  };
  const start = buildChatRequest(withMessage, session.active_policy, { stream: !wait });
  if (start.kind !== 'chat') throw new Error('compat request expected');
  if (!ctx.io.quiet)
    ctx.io.stderr.write(
      `this orchestrator has no inject route; sending through the compat thread ${sanitizeForTerminal(session.conversation_id)}\n`,
    );
  // The compat route does not say where the message landed; the streaming terminal, which sees
  // nsed_injected, fills in the round and sequence of this same record.
  await recordInjection(ctx, session.id, pending.job_id, message, undefined);
  if (!wait) {
    // The routing rule injects as soon as the request arrives; nothing more is needed from it.
    const stream = await conn.client.chatStream(start.body, { threadKey: start.threadKey, signal: ctx.signal });
    stream.abort();
    return { kind: 'answered', pending, placed: UNPLACED };
  }
  await followPending(ctx, conn, session, pending, start);
  return { kind: 'answered', pending, placed: UNPLACED };
}

function nothingRunning(sessionId: string): NsedError {
  return new NsedError('conflict', `nothing is running in session ${sessionId}`, {
    hint: `ask a follow-up with 'nsed continue -s ${sessionId} MESSAGE'`,
  });
}

import type { Connection } from '../connection.js';
import type { Context } from '../context.js';
import { NsedError, notFound } from '../errors.js';
import type { PendingJob, Session } from '../session/index.js';
import type { Gates } from '../verdict.js';
import { claimLeft, reconcileDeadClaim } from './claim.js';
import { followPending } from './execute-turn.js';
import { askJobState } from './job-result.js';
import { clearPending, GONE_REASON, recordJobEnd } from './reconcile.js';
import type { ReportOptions } from './report-options.js';
import type { TurnResult } from './turn-result.js';

/** Whether a session holds a turn some earlier run left to follow: a pending job, or a claim nobody will finish. */
export function hasLeftTurn(session: Session): boolean {
  return session.pending_job !== undefined || (session.claim !== undefined && claimLeft(session.claim));
}

/**
 * Follows the turn an earlier run left (`nsed resume`, `nsed batch --resume`): a claim its owner
 * left is first matched to the job its request started (docs/reliability.md #97), then the job
 * is asked how it stands and followed to its end, or its end recorded. Nothing is sent again.
 * `pending` names a job to follow when the session has no marker (an answer recorded by a run
 * that died before it reported it): its result is read again.
 */
export async function followLeftTurn(
  ctx: Context,
  conn: Connection,
  found: Session,
  extras: { reports?: ReportOptions | undefined; gates?: Gates | undefined; pending?: PendingJob } = {},
): Promise<TurnResult> {
  const id = found.id;
  const store = await ctx.store();
  const claimed = found.pending_job === undefined && found.claim !== undefined && claimLeft(found.claim);
  const session = claimed ? await reconcileDeadClaim(conn.client, store, found, ctx.signal) : found;
  const pending = session.pending_job ?? extras.pending;
  if (pending === undefined) {
    throw new NsedError('conflict', `nothing is running in session ${id}`, {
      hint: `the orchestrator lists no deliberation the interrupted turn started; ask again with 'nsed continue -s ${id}'`,
    });
  }
  const state = await askJobState(conn.client, pending.job_id, ctx.signal);
  const follow = { reports: extras.reports, gates: extras.gates };
  switch (state.kind) {
    case 'gone':
      await clearPending(store, id, pending.job_id, GONE_REASON);
      throw notFound(
        `deliberation ${pending.job_id} is gone from the orchestrator; the turn stays interrupted`,
        'its history expired or the orchestrator restarted; ask again with nsed continue',
      );
    case 'failed':
    case 'cancelled': {
      // A cancelled job has its own state and exit code, not a failure's.
      const cancelled = state.kind === 'cancelled';
      const why = cancelled ? 'was cancelled' : `failed: ${state.reason.slice(0, 300)}`;
      await recordJobEnd(ctx, store, id, pending, state.kind, `deliberation ${why}`);
      throw new NsedError(cancelled ? 'cancelled' : 'server', `deliberation ${pending.job_id} ${why}`, {
        hint: `ask again with 'nsed continue -s ${id}'`,
      });
    }
    case 'completed':
      // A native job is attached even once it ended: its stream is live only, so the follower
      // asks /result at once and rebuilds the rounds and verdict from /details (docs/reliability.md #223).
      return followPending(
        ctx,
        conn,
        session,
        pending,
        pending.path === 'native'
          ? { kind: 'attach', jobId: pending.job_id }
          : { kind: 'result', jobId: pending.job_id, content: state.answer },
        follow,
      );
    case 'running':
      return followPending(ctx, conn, session, pending, { kind: 'attach', jobId: pending.job_id }, follow);
  }
}

import { historyOf, type DetailsHistory } from '../protocol/details.js';
import { readDetails } from './ballot-sources.js';
import type { Connection } from '../run/connection.js';
import type { Context } from '../run/context.js';
import { NsedError, notFound } from '../errors.js';
import type { PendingJob, Session } from '../session/index.js';
import type { Gates } from '../council/verdict.js';
import { claimLeft, settleDeadClaim } from './idempotency/claim.js';
import { followPending } from './execute-turn.js';
import { askJobState, followStart, NO_HISTORY } from './follow/job-result.js';
import { resultOf } from './turn-result.js';
import { clearPending, GONE_REASON, recordJobEnd } from './reconcile.js';
import type { ReportOptions } from './reports/report-options.js';
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
  extras: {
    reports?: ReportOptions | undefined;
    gates?: Gates | undefined;
    pending?: PendingJob;
    /** Sends a turn whose start never reached the orchestrator (a batch item, docs/reliability.md #201). */
    unsent?: (session: Session, userTurnId: string) => Promise<TurnResult>;
  } = {},
): Promise<TurnResult> {
  const id = found.id;
  const store = await ctx.store();
  const claimed = found.pending_job === undefined && found.claim !== undefined && claimLeft(found.claim);
  const settled = claimed
    ? await settleDeadClaim(conn.client, store, found, ctx.signal)
    : { session: found, listed: false };
  const session = settled.session;
  const pending = session.pending_job ?? extras.pending;
  const unsentTurn = claimed && settled.listed ? neverStarted(session, found.claim?.turn) : undefined;
  if (pending === undefined && unsentTurn !== undefined && extras.unsent !== undefined)
    return extras.unsent(session, unsentTurn);
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
    case 'running': {
      // An ended job is replayed where the server keeps its history, so the turn gets the rounds
      // and verdict it would have had (docs/reliability.md #200); its answer alone otherwise.
      const how = followStart(pending.job_id, state) ?? {
        start: { kind: 'result' as const, jobId: pending.job_id, content: '' },
        ended: true,
      };
      const history = how.start.kind === 'result' ? await readHistory(conn, pending.job_id, ctx.signal) : undefined;
      const start = history === undefined ? how.start : { ...how.start, history };
      try {
        return await followPending(ctx, conn, session, pending, start, follow);
      } catch (err) {
        // The gate says why it cannot judge: not a server that forgot, but a history never kept.
        const rounds = resultOf(err)?.verdict.rounds.completed ?? null;
        if (how.ended && rounds === null && err instanceof NsedError && err.code === 'inconclusive')
          ctx.io.stderr.write(`nsed: ${NO_HISTORY}\n`);
        throw err;
      }
    }
  }
}

/**
 * The user turn a dead owner claimed, when its request provably never reached the orchestrator:
 * the orchestrator listed its deliberations and none answers the claim (settleDeadClaim found no
 * job), and the turn is the session's last, answered by nothing or by the turn its owner recorded
 * as interrupted before a job was named. Undefined otherwise: then nothing may be sent again.
 */
function neverStarted(session: Session, turnId: string | undefined): string | undefined {
  if (turnId === undefined || session.pending_job !== undefined) return undefined;
  const at = session.turns.findIndex((t) => t.id === turnId);
  if (at === -1 || session.turns[at]?.role !== 'user') return undefined;
  const after = session.turns.slice(at + 1);
  const cut = after[0];
  if (after.length === 0) return turnId;
  if (after.length === 1 && cut?.role === 'assistant' && cut.job_id === undefined && cut.status === 'interrupted')
    return turnId;
  return undefined;
}

/**
 * The rounds of an ended native job, from `/details` where the server keeps them
 * (docs/reliability.md #200); undefined when it has none to give (no such route, an expired
 * history, a body of another shape): then the answer alone is recorded.
 */
async function readHistory(
  conn: Connection,
  jobId: string,
  signal: AbortSignal | undefined,
): Promise<DetailsHistory | undefined> {
  return historyOf(await readDetails(conn.client, jobId, signal ?? new AbortController().signal));
}

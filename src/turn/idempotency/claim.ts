import type { NsedClient } from '../../api/index.js';
import { NsedError, toNsedError } from '../../errors.js';
import { isAlive, thisHost } from '../../process-alive.js';
import type { PendingJob, Session, TurnClaim, SessionStore } from '../../session/index.js';

/**
 * The turn lease: one turn at a time per session. A command that sends a turn checks that
 * nothing runs and claims the session in ONE locked write, before the request leaves; a second
 * command then sees the claim (or, once the job id is known, the pending marker) and refuses.
 * The claim names its owner, so a claim left by a process that died before the job id was
 * recorded can be told from a live one and reconciled instead of blocking the session forever.
 */

/** A slack for clocks that disagree between this host and the orchestrator. */
const CLOCK_SLACK_MS = 5 * 60_000;

export function newClaim(turn: string, now: Date, randomHex: (bytes: number) => string): TurnClaim {
  return { turn, pid: process.pid, host: thisHost(), token: randomHex(8), since: now.toISOString() };
}

/** Certainly gone: a process of this host that no longer exists. Another host's claim is taken as live. */
export function claimOwnerDead(claim: TurnClaim): boolean {
  return claim.host === thisHost() && !isAlive(claim.pid);
}

/**
 * A pending job whose follower certainly died (a kill -9, a crash): a process of this host that
 * no longer exists. A marker that names no owner, or another host's, is taken as followed.
 */
export function pendingOwnerDead(pending: PendingJob): boolean {
  const owner = pending.owner;
  return owner !== undefined && owner.host === thisHost() && !isAlive(owner.pid);
}

/**
 * A claim nobody will finish: its owner died, or gave up before the orchestrator named a job. The
 * job its request may have started is looked up (reconcileDeadClaim) instead of waited for.
 */
export function claimLeft(claim: TurnClaim): boolean {
  return claim.abandoned !== undefined || claimOwnerDead(claim);
}

export function runningConflict(sessionId: string, jobId: string): NsedError {
  return new NsedError('conflict', `session ${sessionId} has a deliberation still running (${jobId})`, {
    hint: `steer it with 'nsed inject -s ${sessionId} MESSAGE', or follow it with 'nsed resume -s ${sessionId}'`,
  });
}

/** Run inside the locked update that claims the session: refuses, writing nothing, when it is busy. */
export function assertFree(s: Session): void {
  if (s.pending_job !== undefined) throw runningConflict(s.id, s.pending_job.job_id);
  if (s.claim !== undefined) throw claimConflict(s.id, s.claim);
}

/** The refusal a live (or just ended) claim gives: exit 7, naming its owner. */
export function claimConflict(sessionId: string, claim: TurnClaim): NsedError {
  const owner = `pid ${claim.pid}${claim.host === thisHost() ? '' : ` on ${claim.host}`}`;
  const dead = claimLeft(claim);
  return new NsedError(
    'conflict',
    `session ${sessionId} has a turn being sent by another nsed process (${owner})${dead ? ', which has just ended' : ''}`,
    {
      hint: dead
        ? 'run the command again'
        : `steer its deliberation with 'nsed inject -s ${sessionId} MESSAGE', or follow it with 'nsed resume -s ${sessionId}'`,
    },
  );
}

/**
 * A claim whose owner died before the job id was recorded (kill -9 between the POST and the
 * first byte), or gave up then (a signal, a timeout, a reset before the headers): finds the job it may have started in GET /deliberations (a compat job id embeds
 * the thread key, `oc-<conversation>-<ms>`; a native room id starts with the session id), makes
 * it the session's pending job, and releases the claim. Returns the session as now stored.
 */
export async function reconcileDeadClaim(
  client: NsedClient,
  store: SessionStore,
  session: Session,
  signal?: AbortSignal,
): Promise<Session> {
  return (await settleDeadClaim(client, store, session, signal)).session;
}

/**
 * reconcileDeadClaim, also saying whether the orchestrator listed its deliberations: only then
 * does a claim matched to no job prove its request never reached the server (docs/reliability.md #201).
 */
export async function settleDeadClaim(
  client: NsedClient,
  store: SessionStore,
  session: Session,
  signal?: AbortSignal,
): Promise<{ session: Session; listed: boolean }> {
  const claim = session.claim;
  if (claim === undefined || !claimLeft(claim)) return { session, listed: false };
  let jobs: Array<{ job_id: string; status: string }>;
  let listed = true;
  try {
    jobs = await client.deliberations(signal === undefined ? {} : { signal });
  } catch (err) {
    // An orchestrator without the listing cannot say; the claim is released all the same, as
    // its owner is gone and a job it started, if any, can no longer be followed from here.
    if (toNsedError(err).code !== 'not_found') throw err;
    jobs = [];
    listed = false;
  }
  const job = startedBy(session, claim, jobs);
  const settled = await store.update(session.id, (s) => {
    if (s.claim?.token !== claim.token) return;
    delete s.claim;
    if (job === undefined || s.pending_job !== undefined) return;
    // The turn its owner recorded as interrupted answers this job: the answer replaces it.
    const asked = s.turns.findIndex((t) => t.id === claim.turn);
    const cut = s.turns[asked + 1];
    if (asked !== -1 && cut?.role === 'assistant' && cut.job_id === undefined && cut.status === 'interrupted')
      cut.job_id = job;
    s.pending_job = {
      job_id: job,
      turn: claim.turn,
      path: job.startsWith('oc-') ? 'compat' : 'native',
      policy: s.active_policy,
      started: claim.since,
    };
    s.server_thread = job;
  });
  return { session: settled, listed };
}

/** The newest job the claim's request could have started that the session has not recorded. */
function startedBy(session: Session, claim: TurnClaim, jobs: Array<{ job_id: string }>): string | undefined {
  const since = Date.parse(claim.since) - CLOCK_SLACK_MS;
  const known = new Set(session.turns.map((t) => t.job_id).filter((j) => j !== undefined));
  const compat = `oc-${session.conversation_id}-`;
  let best: { id: string; ms: number } | undefined;
  for (const { job_id: id } of jobs) {
    if (known.has(id)) continue;
    let ms: number;
    if (id.startsWith(compat)) ms = Number(/^\d+/.exec(id.slice(compat.length))?.[0] ?? NaN);
    else if (id.startsWith(`${session.id}_`)) ms = since;
    else continue;
    if (!Number.isFinite(ms) || ms < since) continue;
    if (best === undefined || ms > best.ms) best = { id, ms };
  }
  return best?.id;
}

/**
 * Releases the caller's own claim after a failure before the turn was recorded. A claim the
 * recorder marked abandoned stays: the job its request may have started is still to be found.
 */
export async function releaseClaim(store: SessionStore, sessionId: string, token: string): Promise<void> {
  await store.update(sessionId, (s) => {
    if (s.claim?.token === token && s.claim.abandoned === undefined) delete s.claim;
  });
}

import type { Connection } from '../run/connection.js';
import type { Context } from '../run/context.js';
import { NsedError, toNsedError } from '../errors.js';
import {
  newTurnId,
  readKeyPointer,
  writeKeyPointer,
  type BatchRef,
  type PendingJob,
  type Session,
  type Turn,
  type TurnClaim,
  withKeyClaim,
} from '../session/index.js';
import { keyedRoomId, type TurnStart } from './build-request.js';
import { claimConflict, claimLeft } from './idempotency/claim.js';
import { executeTurn, followPending } from './execute-turn.js';
import { councilChoice } from './turn-options.js';
import { askJobState, followStart, type JobState } from './follow/job-result.js';
import { replayAnswer } from './follow/replay-answer.js';
import { createSession, startSession, titleFrom, userTurn } from './start-session.js';
import { requestHash, sha256, type AskedRequest } from './idempotency/request-identity.js';
import type { TurnResult } from './turn-result.js';

/**
 * `--idempotency-key KEY`: re-runs that never pay twice (docs/ci.md "Re-runs that never pay twice",
 * docs/reliability.md #133-#139). The key and a hash of the resolved request name the turn; the
 * conversation id is derived from both (`thread-<16 hex of the key><16 hex of the request>`), so
 * the job the orchestrator mints under it (`oc-<conversation>-<ms>`, docs/protocol.md §6, or the
 * native room `idem-<...>`) can be found again by a run that has no store: a CI re-run on a new
 * runner. A run always looks before it sends, since a chat request on the thread of a running
 * job would be an injection into it (docs/protocol.md §6.2).
 */

/** What a turn is asked with (request-identity.ts), and the batch item it runs, if any. */
export interface KeyedRequest extends AskedRequest {
  /** The batch item it runs, recorded on its session (not part of the request's hash). */
  batch?: BatchRef;
}

/** The names a key and its request give a turn. */
export interface KeyIdentity {
  key: string;
  /** SHA-256 of the key, hex: the store's pointer file. */
  keyHash: string;
  /** SHA-256 of the resolved request, hex: recorded on the session. */
  requestHash: string;
  /** `thread-<16 hex of keyHash><16 hex of requestHash>`. */
  conversationId: string;
}

/** What a keyed run does (decideKeyed); `runKeyed` does it. */
export type KeyDecision =
  /** The key's turn is answered in the store: print that answer, send nothing. */
  | { kind: 'replay'; session: Session; turn: Turn }
  /** Its deliberation is known (running, or ended with an answer not yet recorded): follow it. */
  | { kind: 'attach'; session: Session; pending: PendingJob; start: TurnStart; ended: boolean }
  /** Nothing to reuse: send the turn under the key's names. */
  | { kind: 'submit'; identity: KeyIdentity; why?: string }
  /** Another live run is sending the key's turn and has no job id yet: wait for it, then follow. */
  | { kind: 'sending'; session: Session; claim: TurnClaim }
  /** The key was used for another question (exit 2), or its turn is being sent right now (exit 7). */
  | { kind: 'refused'; error: NsedError };

/** SHA-256 of the key, hex: names its pointer file and its claim. */
const keyHashOf = (key: string): string => sha256(`nsed idempotency key\u0000${key}`);

export async function keyIdentity(ctx: Context, key: string, request: KeyedRequest): Promise<KeyIdentity> {
  const keyHash = keyHashOf(key);
  const hash = await requestHash(ctx, request);
  return { key, keyHash, requestHash: hash, conversationId: `thread-${keyHash.slice(0, 16)}${hash.slice(0, 16)}` };
}

/** The key in a message: as given (its charset is checked), cut short. */
const shown = (key: string): string => (key.length > 80 ? `${key.slice(0, 80)}…` : key);

function reusedKey(key: string, where: string): NsedError {
  return new NsedError(
    'usage',
    `idempotency key '${shown(key)}' was used for another question (${where}): a key is not reusable for another question`,
    { hint: 'give this question a key of its own, or pass --force to run it under this key anyway' },
  );
}

/** A run under an idempotency key; `force` runs a new question under a key already used for another. */
export interface KeyedRun {
  key: string;
  force: boolean;
}

/**
 * Decides what a run under `key` does, looking before it sends: first the store (the session the
 * key names), then the orchestrator (its listing, or the native room by name), so the same key
 * and request never start a second deliberation while the first can be followed or replayed. A
 * deliberation found only on the orchestrator is recorded as a session before it is followed.
 */
export async function decideKeyed(
  ctx: Context,
  conn: Connection,
  { key, force }: KeyedRun,
  request: KeyedRequest,
): Promise<KeyDecision> {
  const id = await keyIdentity(ctx, key, request);
  const known = await keyedSession(ctx, id, conn.orchestrator);
  if (known !== undefined) {
    if (known.idempotency?.request_hash !== id.requestHash)
      return force
        ? { kind: 'submit', identity: id, why: 'forced' }
        : { kind: 'refused', error: reusedKey(key, `session ${known.id}`) };
    const pending = known.pending_job;
    if (pending !== undefined) {
      const state = await askJobState(conn.client, pending.job_id, ctx.signal);
      const follow = followStart(pending.job_id, state);
      if (follow !== undefined) return { kind: 'attach', session: known, pending, ...follow };
      return { kind: 'submit', identity: id, why: endedWithout(pending.job_id, state) };
    }
    if (known.claim !== undefined && !claimLeft(known.claim))
      return { kind: 'sending', session: known, claim: known.claim };
    const last = known.turns.findLast((t) => t.role === 'assistant');
    if (known.claim === undefined && last?.status === 'complete') return { kind: 'replay', session: known, turn: last };
  }
  const { agents, rounds } = councilChoice(request.turn, ctx.globals.settings);
  const found = await findOnServer(ctx, conn, id, { native: agents !== undefined || rounds !== undefined });
  switch (found.kind) {
    case 'changed':
      return force
        ? { kind: 'submit', identity: id, why: 'forced' }
        : { kind: 'refused', error: reusedKey(key, `deliberation ${found.jobId} on the orchestrator`) };
    case 'unlisted':
      return { kind: 'submit', identity: id, why: 'unlisted' };
    case 'none':
      return { kind: 'submit', identity: id };
    case 'found': {
      const follow = followStart(found.jobId, found.state);
      if (follow === undefined) return { kind: 'submit', identity: id, why: endedWithout(found.jobId, found.state) };
      const session = await recordFound(ctx, id, request, conn.orchestrator, found.jobId, known);
      const pending = session.pending_job;
      if (pending === undefined) throw new NsedError('bug', `session ${session.id} lost its pending job`);
      return { kind: 'attach', session, pending, ...follow };
    }
  }
}

/** Why a known job is not reused: it gave no answer to reuse, so a re-run asks again. */
function endedWithout(jobId: string, state: JobState): string {
  switch (state.kind) {
    case 'gone':
      return `deliberation ${jobId} is gone from the orchestrator`;
    case 'failed':
      return `deliberation ${jobId} failed`;
    case 'cancelled':
      return `deliberation ${jobId} was cancelled`;
    default:
      return `deliberation ${jobId} ended without an answer`;
  }
}

/** The session the store's pointer names for this key, if it is there, of this orchestrator, and really the key's. */
async function keyedSession(ctx: Context, id: KeyIdentity, orchestrator: string): Promise<Session | undefined> {
  const store = await ctx.store();
  const sessionId = await readKeyPointer(store.home, id.keyHash, id.key);
  if (sessionId === undefined) return undefined;
  try {
    // With its rounds: a re-run of an answered key shows the recorded answer, rounds and ballots included.
    const s = await store.read(sessionId, { rounds: true });
    return s.idempotency?.key === id.key && s.orchestrator === orchestrator ? s : undefined;
  } catch (err) {
    // Removed since (sessions rm): the key starts over. An unreadable file is the store's error.
    if (toNsedError(err).code === 'not_found') return undefined;
    throw err;
  }
}

type Found =
  | { kind: 'none' }
  /** The orchestrator has no listing: nothing can be found without the store. */
  | { kind: 'unlisted' }
  | { kind: 'found'; jobId: string; state: JobState }
  /** A job under the key asked another question (its id carries another request hash). */
  | { kind: 'changed'; jobId: string };

const COMPAT_JOB = /^oc-thread-([0-9a-f]{16})([0-9a-f]{16})-(\d{1,16})(?:-(\d{1,6}))?$/;
const NATIVE_JOB = /^idem-([0-9a-f]{16})([0-9a-f]{16})$/;

/**
 * Looks the key up on the orchestrator: `GET /deliberations` lists its jobs, and a job under the
 * key's thread or room carries the request hash in its id. The newest job of the same request is
 * the key's (by the `-<ms>` suffix, then the counter); a job of another request is a changed
 * question. Without the listing (404, 405), a native turn's room is asked for by name; a compat
 * job cannot be found then.
 */
async function findOnServer(
  ctx: Context,
  conn: Connection,
  id: KeyIdentity,
  { native }: { native: boolean },
): Promise<Found> {
  const tag = id.conversationId.slice('thread-'.length, 'thread-'.length + 16);
  const mine = id.conversationId.slice('thread-'.length + 16);
  let jobs: Array<{ job_id: string }>;
  try {
    jobs = await conn.client.deliberations({ signal: ctx.signal });
  } catch (err) {
    const e = toNsedError(err);
    if (e.code !== 'not_found' && e.status !== 405) throw e;
    if (!native) return { kind: 'unlisted' };
    // The native room is named by the key and the request: a 404 says it never started.
    const room = keyedRoomId(id.conversationId);
    const state = await askJobState(conn.client, room, ctx.signal);
    return state.kind === 'gone' ? { kind: 'none' } : { kind: 'found', jobId: room, state };
  }
  let best: { jobId: string; ms: number; n: number } | undefined;
  let other: string | undefined;
  for (const { job_id: jobId } of jobs) {
    const compat = COMPAT_JOB.exec(jobId);
    const native = compat === null ? NATIVE_JOB.exec(jobId) : null;
    const m = compat ?? native;
    if (m === null || m[1] !== tag) continue;
    if (m[2] !== mine) {
      other ??= jobId;
      continue;
    }
    const ms = compat === null ? 0 : Number(compat[3]);
    const n = compat === null ? 0 : Number(compat[4] ?? 0);
    if (best === undefined || ms > best.ms || (ms === best.ms && n > best.n)) best = { jobId, ms, n };
  }
  if (best !== undefined)
    return { kind: 'found', jobId: best.jobId, state: await askJobState(conn.client, best.jobId, ctx.signal) };
  return other === undefined ? { kind: 'none' } : { kind: 'changed', jobId: other };
}

/**
 * Records a job found on the orchestrator as the key's session (a new one, or the store's
 * session whose sending run died before it learnt the job id), with the job as its pending job,
 * so that following it records the answer as any turn's is.
 */
async function recordFound(
  ctx: Context,
  id: KeyIdentity,
  request: KeyedRequest,
  orchestrator: string,
  jobId: string,
  known: Session | undefined,
): Promise<Session> {
  const store = await ctx.store();
  const now = ctx.clock.now();
  const path = jobId.startsWith('oc-') ? 'compat' : 'native';
  if (known !== undefined) {
    const asked = known.turns.findLast((t) => t.role === 'user');
    if (asked !== undefined)
      return store.update(known.id, (s) => {
        delete s.claim;
        s.pending_job = { job_id: jobId, turn: asked.id, path, policy: s.active_policy, started: now.toISOString() };
      });
  }
  const userTurnId = newTurnId(ctx.randomHex);
  const session = await createSession(
    ctx,
    {
      opts: request.turn,
      orchestrator,
      title: request.turn.title ?? titleFrom(request.prompt),
      turns: [userTurn(userTurnId, request.prompt, now, request.attachments)],
      conversationId: id.conversationId,
      idempotency: { key: id.key, request_hash: id.requestHash },
      ...(request.batch === undefined ? {} : { batch: request.batch }),
    },
    now,
  );
  const recorded = await store.update(session.id, (s) => {
    s.pending_job = { job_id: jobId, turn: userTurnId, path, policy: s.active_policy, started: now.toISOString() };
  });
  if (ctx.saving) await writeKeyPointer(store.home, id.keyHash, id.key, session.id);
  return recorded;
}

/**
 * Runs a turn under `key` (ask, a batch item): replays, follows or submits as decideKeyed says.
 * A line on stderr says which, unless the run is quiet.
 */
export async function runKeyed(
  ctx: Context,
  conn: Connection,
  keyed: KeyedRun,
  request: KeyedRequest,
): Promise<TurnResult> {
  const { key } = keyed;
  const say = (text: string): void => {
    if (!ctx.io.quiet) ctx.io.stderr.write(`nsed: idempotency key '${shown(key)}': ${text}\n`);
  };
  let claimed = await claimKey(ctx, conn, keyed, request, say);
  // Another run is sending the key's turn: once its job id is recorded, it is followed.
  for (let waits = 0; claimed.decision.kind === 'sending'; waits++) {
    const { session, claim } = claimed.decision;
    if (waits === MAX_SENDING_WAITS) throw claimConflict(session.id, claim);
    say(`session ${session.id} is sending this question in another nsed process; waiting for its deliberation`);
    await untilSent(ctx, session.id, claim);
    claimed = await claimKey(ctx, conn, keyed, request, say);
  }
  const { decision, started } = claimed;
  const gates = request.turn.gates;
  switch (decision.kind) {
    case 'refused':
      throw decision.error;
    case 'replay':
      say(`answered before in session ${decision.session.id}; printing the recorded answer, sending nothing`);
      return replayAnswer(ctx, decision.session, decision.turn, {
        url: conn.url,
        gates,
        reports: request.turn.reports,
      });
    case 'attach':
      say(
        decision.ended
          ? `deliberation ${decision.pending.job_id} has answered; recording its answer in session ${decision.session.id}`
          : `deliberation ${decision.pending.job_id} is still running; following it in session ${decision.session.id}`,
      );
      return followPending(ctx, conn, decision.session, decision.pending, decision.start, {
        reports: request.turn.reports,
        gates,
        schema: request.turn.schema,
      });
    case 'submit': {
      if (decision.why === 'unlisted')
        say(
          'the orchestrator does not list its deliberations (GET /deliberations), so one started elsewhere cannot be found; sending',
        );
      else if (decision.why !== undefined && decision.why !== 'forced') say(`${decision.why}; asking again`);
      if (started === undefined) throw new NsedError('bug', 'a keyed turn to send has no session');
      return executeTurn(ctx, conn, started.session, started.userTurnId, request.turn, { fresh: true });
    }
  }
}

/** Waits for a run sending the key's turn this many times before refusing, as a busy session is (exit 7). */
const MAX_SENDING_WAITS = 3;

/**
 * Decides under the key's claim (session/key-index.ts) and, when the turn is to be sent, records
 * its session, claimed, and points the key at it before the claim is let go: a second run under
 * the key started at the same moment then finds that session and follows its deliberation
 * instead of sending the question again (docs/reliability.md #133). Nothing is sent under the
 * claim but the look-ups.
 */
async function claimKey(
  ctx: Context,
  conn: Connection,
  keyed: KeyedRun,
  request: KeyedRequest,
  say: (text: string) => void,
): Promise<{ decision: KeyDecision; started?: { session: Session; userTurnId: string } }> {
  const decideAndStart = async (): Promise<{
    decision: KeyDecision;
    started?: { session: Session; userTurnId: string };
  }> => {
    const decision = await decideKeyed(ctx, conn, keyed, request);
    if (decision.kind !== 'submit') return { decision };
    const id = decision.identity;
    const started = await startSession(ctx, {
      prompt: request.prompt,
      attachments: request.attachments,
      opts: request.turn,
      orchestrator: conn.orchestrator,
      conversationId: id.conversationId,
      idempotency: { key: id.key, request_hash: id.requestHash },
      ...(request.batch === undefined ? {} : { batch: request.batch }),
    });
    if (ctx.saving) await writeKeyPointer((await ctx.store()).home, id.keyHash, id.key, started.session.id);
    return { decision, started };
  };
  // A run that saves nothing leaves no pointer for another run to find: there is nothing to claim.
  if (!ctx.saving) return decideAndStart();
  const { key } = keyed;
  const home = (await ctx.store()).home;
  return withKeyClaim(
    home,
    keyHashOf(key),
    {
      label: `idempotency key '${shown(key)}'`,
      // The other run holds it while it asks the orchestrator, each request bounded by the idle timeout.
      timeoutMs: Math.round(ctx.globals.settings.idleTimeoutS.value * 1000),
      onWait: () => say('another nsed process is looking this key up; waiting for it'),
      held: (pid) =>
        new NsedError(
          'conflict',
          `idempotency key '${shown(key)}' is held by another nsed process${pid === undefined ? '' : ` (pid ${pid})`}`,
          { hint: 'run the command again when it has sent its question' },
        ),
    },
    decideAndStart,
  );
}

/**
 * Waits, bounded by the idle timeout (the other run's own bound on its start), until the session
 * another run is sending has its job id recorded, or that run let its claim go (it failed, or
 * died: then the key is decided again).
 */
async function untilSent(ctx: Context, sessionId: string, claim: TurnClaim): Promise<void> {
  const store = await ctx.store();
  const limitMs = ctx.globals.settings.idleTimeoutS.value * 1000;
  let pause = 25;
  for (let waited = 0; waited < limitMs; waited += pause, pause = Math.min(pause * 2, 500)) {
    await ctx.clock.sleep(pause, ctx.signal);
    let s: Session;
    try {
      s = await store.read(sessionId);
    } catch (err) {
      if (toNsedError(err).code === 'not_found') return;
      throw err;
    }
    if (s.pending_job !== undefined || s.claim?.token !== claim.token || claimLeft(s.claim)) return;
  }
}

import {
  newConversationId,
  newSessionId,
  newTurnId,
  SESSION_VERSION,
  type Attachment,
  type BatchRef,
  type Session,
  type Turn,
  type TurnClaim,
} from '../session/index.js';
import type { Context } from '../run/context.js';
import { newClaim } from './idempotency/claim.js';
import { askedModel, councilOf, type TurnOptions } from './turn-options.js';

/** A new session's parts; the policy, system and title flags win over what is inherited. */
export interface SessionInit {
  opts: Pick<TurnOptions, 'policy' | 'model' | 'system' | 'title'> & Partial<Pick<TurnOptions, 'agents' | 'rounds'>>;
  orchestrator: string;
  /** Turns carried over from a parent session (fork). */
  turns?: Turn[];
  forkedFrom?: Session['forked_from'];
  /** The tool definitions the parent offered (fork): offered again, as continue offers them. */
  tools?: Session['tools'];
  /** Used when --title is not given. */
  title: string;
  /** The turn lease of a session created to run a turn at once. */
  claim?: TurnClaim;
  /** The batch item the session runs (`nsed batch`). */
  batch?: BatchRef;
  /**
   * A conversation id derived from an --idempotency-key (turn/idempotency.ts), so the job the
   * orchestrator mints under it can be found again from another machine; else a random one.
   */
  conversationId?: string;
  idempotency?: Session['idempotency'];
}

/** Creates and stores a session (a fork without a prompt has no turn of its own). */
export async function createSession(ctx: Context, init: SessionInit, now = ctx.clock.now()): Promise<Session> {
  const session: Session = {
    version: SESSION_VERSION,
    id: newSessionId(ctx.randomHex, now),
    title: init.opts.title ?? init.title,
    created: now.toISOString(),
    updated: now.toISOString(),
    active_policy: askedModel(init.opts, ctx.globals.settings),
    orchestrator: init.orchestrator,
    conversation_id: init.conversationId ?? newConversationId(ctx.randomHex),
    turns: init.turns ?? [],
  };
  if (init.opts.system !== undefined) session.system = init.opts.system;
  const council = councilOf(init.opts);
  if (council !== undefined) session.council = council;
  if (init.forkedFrom !== undefined) session.forked_from = init.forkedFrom;
  if (init.tools !== undefined) session.tools = structuredClone(init.tools);
  if (init.claim !== undefined) session.claim = init.claim;
  if (init.batch !== undefined) session.batch = { ...init.batch };
  if (init.idempotency !== undefined) session.idempotency = init.idempotency;
  await (await ctx.store()).create(session);
  return session;
}

/** Creates a session holding the first user turn; the answer is recorded by the turn runner. */
export async function startSession(
  ctx: Context,
  init: Omit<SessionInit, 'title'> & { prompt: string; title?: string; attachments?: readonly Attachment[] },
): Promise<{ session: Session; userTurnId: string }> {
  const now = ctx.clock.now();
  const userTurnId = newTurnId(ctx.randomHex);
  const turns = [...(init.turns ?? []), userTurn(userTurnId, init.prompt, now, init.attachments)];
  // Claimed from birth, so a run killed before its job id is known is reconciled like any other.
  const claim = newClaim(userTurnId, now, ctx.randomHex);
  const session = await createSession(ctx, { ...init, title: init.title ?? titleFrom(init.prompt), turns, claim }, now);
  return { session, userTurnId };
}

export function userTurn(id: string, content: string, now: Date, attachments?: readonly Attachment[]): Turn {
  const turn: Turn = { id, role: 'user', kind: 'message', content, status: 'complete', ts: now.toISOString() };
  if (attachments !== undefined && attachments.length > 0)
    turn.attachments = attachments.map((a) => ({ path: a.path, size: a.size, sha256: a.sha256 }));
  return turn;
}

/** The first line of the prompt, cut at a word near 60 characters. */
export function titleFrom(prompt: string): string {
  const line = prompt.trim().split(/\r?\n/)[0] ?? '';
  if (line.length <= 60) return line;
  const cut = line.slice(0, 60);
  const space = cut.lastIndexOf(' ');
  return `${space > 30 ? cut.slice(0, space) : cut}…`;
}

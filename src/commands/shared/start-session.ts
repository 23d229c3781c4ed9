import { toModel } from '../../protocol/policy-ref.js';
import { newConversationId, newSessionId, newTurnId } from '../../session/ids.js';
import { SESSION_VERSION, type Session, type Turn } from '../../session/model.js';
import type { SessionStore } from '../../session/store.js';
import type { CommandEnv } from '../command.js';
import { councilOf, type TurnOptions } from './turn-options.js';

/** The default policy: NSED_POLICY, else `*` (the orchestrator's first registered policy). */
export function defaultPolicy(env: Readonly<Record<string, string | undefined>>): string {
  const p = env['NSED_POLICY'];
  return p === undefined || p.trim() === '' ? '*' : p.trim();
}

/** Creates a new session holding the first user turn; the answer is recorded by the turn runner. */
export async function startSession(
  env: CommandEnv,
  store: SessionStore,
  init: { prompt: string; opts: TurnOptions; orchestrator: string; turns?: Turn[]; forkedFrom?: Session['forked_from']; title?: string },
): Promise<{ session: Session; userTurnId: string }> {
  const { ctx } = env;
  const now = ctx.clock.now();
  const userTurnId = newTurnId(ctx.randomHex);
  const session: Session = {
    version: SESSION_VERSION,
    id: newSessionId(ctx.randomHex, now),
    title: init.opts.title ?? init.title ?? titleFrom(init.prompt),
    created: now.toISOString(),
    updated: now.toISOString(),
    active_policy: toModel(init.opts.policy ?? defaultPolicy(ctx.env)),
    orchestrator: init.orchestrator,
    conversation_id: newConversationId(ctx.randomHex),
    turns: [...(init.turns ?? []), userTurn(userTurnId, init.prompt, now)],
  };
  if (init.opts.system !== undefined) session.system = init.opts.system;
  const council = councilOf(init.opts);
  if (council !== undefined) session.council = council;
  if (init.forkedFrom !== undefined) session.forked_from = init.forkedFrom;
  await store.create(session);
  return { session, userTurnId };
}

export function userTurn(id: string, content: string, now: Date): Turn {
  return { id, role: 'user', kind: 'message', content, status: 'complete', ts: now.toISOString() };
}

/** The first line of the prompt, cut at a word near 60 characters. */
export function titleFrom(prompt: string): string {
  const line = prompt.trim().split(/\r?\n/)[0] ?? '';
  if (line.length <= 60) return line;
  const cut = line.slice(0, 60);
  const space = cut.lastIndexOf(' ');
  return `${space > 30 ? cut.slice(0, space) : cut}…`;
}

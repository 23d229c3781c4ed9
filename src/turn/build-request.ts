import type { DetailsHistory } from '../protocol/details.js';
import type {
  ChatCompletionRequest,
  ChatMessage,
  DeliberationRequest,
  ToolDefinition,
  UserTool,
} from '../protocol/wire.js';
import { type Session, lineageMessages, lineageWithTools } from '../session/index.js';

/** How a turn reaches the orchestrator (docs/protocol.md §3.1 and §3.3). */
export type TurnStart =
  | { kind: 'chat'; body: ChatCompletionRequest; threadKey: string }
  | { kind: 'submit'; body: DeliberationRequest }
  | { kind: 'attach'; jobId: string }
  /** A job that already finished: its answer, as GET /result gave it. */
  /**
   * An ended job's answer from `/result`; `history`: its rounds read back from `/details` where
   * the server keeps them (a native job found ended, docs/reliability.md #200), shown and
   * recorded before the answer as the stream would have shown them.
   */
  | { kind: 'result'; jobId: string; content: string; history?: DetailsHistory };

export interface NativeChoice {
  agents: string[] | undefined;
  rounds: number | undefined;
  /** Set when the policy was resolved to a registered policy id (no --agents given). */
  policyId: string | undefined;
}

/**
 * The compat request: the session's whole lineage as `messages` (system first), never
 * pre-flattened (docs/protocol.md §3.1.1): the server flattens.
 */
export function buildChatRequest(
  session: Session,
  model: string,
  opts: { stream: boolean; tools?: ToolDefinition[]; uptoTurnIndex?: number },
): TurnStart {
  const messages: ChatMessage[] = [];
  if (session.system !== undefined && session.system !== '') messages.push({ role: 'system', content: session.system });
  for (const m of lineageWithTools(session, opts.uptoTurnIndex)) messages.push({ ...m });
  const body: ChatCompletionRequest = { model, messages, stream: opts.stream };
  if (opts.tools !== undefined && opts.tools.length > 0) body.tools = opts.tools;
  return { kind: 'chat', body, threadKey: session.conversation_id };
}

/**
 * The room of a session's first job when it runs under an --idempotency-key: named from its
 * conversation id (`thread-<key hash><request hash>` becomes `idem-<key hash><request hash>`),
 * so a re-run on a machine that never saw the session asks for that room by name.
 */
export function keyedRoomId(conversationId: string): string {
  return `idem-${conversationId.replace(/^thread-/, '')}`;
}

/**
 * The native request: a fresh room per turn (`<session>_<16 hex>`, so a retry never meets a
 * 409 from the previous turn), the branch's conversation id, the messages form (the server
 * derives user_query and new_turn), and the system prompt as system_instructions, since a
 * system turn inside messages is rejected (docs/protocol.md §3.3.2). The first job of a session
 * started under an --idempotency-key runs in its keyed room instead (keyedRoomId).
 */
export function buildNativeRequest(
  session: Session,
  choice: NativeChoice,
  roomSuffix: string,
  userTools?: UserTool[],
): TurnStart {
  const body: DeliberationRequest = {
    room_id:
      session.idempotency !== undefined && !session.turns.some((t) => t.job_id !== undefined)
        ? keyedRoomId(session.conversation_id)
        : `${session.id}_${roomSuffix}`,
    conversation_id: session.conversation_id,
    messages: lineageMessages(session).map((m) => ({ role: m.role, content: m.content })),
  };
  if (choice.agents !== undefined) body.agent_names = choice.agents;
  if (choice.policyId !== undefined) body.policy_id = choice.policyId;
  if (choice.rounds !== undefined) body.deliberation_rounds = choice.rounds;
  if (session.system !== undefined && session.system !== '') body.system_instructions = session.system;
  if (userTools !== undefined && userTools.length > 0) body.user_tools = userTools;
  return { kind: 'submit', body };
}

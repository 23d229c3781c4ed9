import { flatten } from '../protocol/flatten.js';
import { isRecord } from './http-util.js';
import { forbiddenCharacters } from './ids.js';
import type { SimPolicy } from './policies.js';
import { quoted } from './quote.js';

export interface SubmitPlan {
  roomId: string;
  query: string;
  /** The turn the agents should answer now: `new_turn`, the last user message, or the query. */
  question: string;
  earlier: string;
  messages?: Array<{ role: string; content: string }>;
  agents: string[];
  rounds: number;
  policyId?: string;
  conversationId?: string;
  systemInstructions?: string;
}

export type SubmitCheck = { ok: true; plan: SubmitPlan } | { ok: false; error: string };

// The seed names exactly these; anything else is refused rather than guessed at.
const MESSAGE_ROLES = ['user', 'assistant'];
const fail = (error: string): SubmitCheck => ({ ok: false, error });

function checkId(what: string, id: string): string | undefined {
  const bad = forbiddenCharacters(id);
  return bad.length === 0 ? undefined : `${what} ${quoted(id)} contains forbidden characters: ${bad.join(', ')}`;
}

/** Every validation rule of docs/protocol.md §3.3.2, in the order a reader would check them. */
export function validateSubmit(body: unknown, policies: readonly SimPolicy[]): SubmitCheck {
  if (!isRecord(body)) return fail('the request body must be a JSON object');
  const { room_id, user_query, messages, new_turn } = body;
  if (typeof room_id !== 'string' || room_id === '') return fail('room_id is required');
  const badRoom = checkId('room_id', room_id);
  if (badRoom) return fail(badRoom);
  if (messages !== undefined && user_query !== undefined) return fail('send either messages or user_query, not both');
  if (messages === undefined && user_query === undefined) return fail('either user_query or messages is required');
  if (new_turn !== undefined && typeof new_turn !== 'string') return fail('new_turn must be a string');

  let query: string;
  let question: string;
  let earlier = '';
  let turns: Array<{ role: string; content: string }> | undefined;
  if (messages !== undefined) {
    if (!Array.isArray(messages) || messages.length === 0) return fail('messages must be a non-empty array');
    turns = [];
    for (const [i, m] of messages.entries()) {
      if (!isRecord(m) || typeof m.role !== 'string' || typeof m.content !== 'string')
        return fail(`messages[${i}] must have a string role and content`);
      if (m.role === 'system')
        return fail('a system turn is not allowed in messages; put instructions in system_instructions');
      if (!MESSAGE_ROLES.includes(m.role))
        return fail(`messages[${i}] has an unsupported role ${quoted(m.role)} (use user or assistant)`);
      turns.push({ role: m.role, content: m.content });
    }
    const users = turns.filter((t) => t.role === 'user');
    const lastUser = users[users.length - 1]?.content;
    if (new_turn !== undefined && new_turn !== lastUser)
      return fail('new_turn must equal the last user turn of messages (or be left out)');
    query = flatten(turns);
    question = lastUser ?? query;
    earlier = users.length > 1 ? (users[0]?.content ?? '') : '';
  } else {
    if (typeof user_query !== 'string') return fail('user_query must be a string');
    query = user_query;
    // Only for choosing the agents' topic: role labels are not words of the question.
    question =
      typeof new_turn === 'string' && new_turn !== '' ? new_turn : user_query.replace(/^\[[A-Za-z_]+\] /gm, '');
  }

  let agents: string[];
  let policyId: string | undefined;
  // No source says the server picks a council by itself, so a request naming none is refused.
  if (body.agent_names === undefined && body.policy_id === undefined)
    return fail('either agent_names or policy_id is required');
  if (body.agent_names !== undefined) {
    if (!Array.isArray(body.agent_names) || !body.agent_names.every((a): a is string => typeof a === 'string'))
      return fail('agent_names must be an array of strings');
    for (const a of body.agent_names) {
      const bad = checkId('agent name', a);
      if (bad) return fail(bad);
    }
    agents = [...new Set(body.agent_names)];
  } else {
    const p = policies.find((x) => x.policy_id === body.policy_id);
    if (!p) return fail(`unknown policy_id ${quoted(body.policy_id)}`);
    agents = [...p.agents];
    policyId = p.policy_id;
  }
  if (agents.length < 2) return fail('fewer than 2 agents');

  const roundsIn = body.deliberation_rounds;
  if (
    roundsIn !== undefined &&
    (typeof roundsIn !== 'number' || !Number.isInteger(roundsIn) || roundsIn < 1 || roundsIn > 50)
  ) {
    return fail('deliberation_rounds must be a whole number from 1 to 50');
  }
  if (body.effort !== undefined && (typeof body.effort !== 'number' || body.effort < 0 || body.effort > 1))
    return fail('effort must be a number between 0 and 1');
  if (body.system_instructions !== undefined && typeof body.system_instructions !== 'string')
    return fail('system_instructions must be a string');

  const plan: SubmitPlan = {
    roomId: room_id,
    query,
    question,
    earlier,
    agents,
    rounds: typeof roundsIn === 'number' ? roundsIn : 3,
  };
  if (turns) plan.messages = turns;
  if (policyId) plan.policyId = policyId;
  if (typeof body.conversation_id === 'string') plan.conversationId = body.conversation_id;
  if (typeof body.system_instructions === 'string') plan.systemInstructions = body.system_instructions;
  return { ok: true, plan };
}

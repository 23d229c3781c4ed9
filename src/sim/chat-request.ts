import type { ChatMessage, ToolCall, ToolDefinition } from '../protocol/wire.js';
import { isRecord } from './http-util.js';
import { quoted } from './quote.js';
import { type ToolChoice, readToolChoice } from './tool-choice.js';

export interface ChatRequestIn {
  model: unknown;
  messages: ChatMessage[];
  stream: boolean;
  tools: ToolDefinition[];
  /** `stream_options.include_usage`: a last chunk with `choices: []` and `usage`. */
  includeUsage: boolean;
  toolChoice: ToolChoice;
}

/** A refusal names the field it is about (`param` in OpenAI's error body), or null for the whole body. */
export type ChatParse = { ok: true; value: ChatRequestIn } | { ok: false; message: string; param: string | null };

const refuse = (message: string, param: string | null): ChatParse => ({ ok: false, message, param });

/** OpenAI's numeric sampling fields and their ranges; a wrong type or range is a 400 there. */
const NUMBER_FIELDS: ReadonlyArray<[string, number, number]> = [
  ['temperature', 0, 2],
  ['top_p', 0, 1],
  ['frequency_penalty', -2, 2],
  ['presence_penalty', -2, 2],
];

/**
 * The request fields whose type OpenAI checks before anything runs: a wrong type is a 400
 * naming the field (an OpenAI-compatible server does not answer 200 to `stream: "yes"`).
 */
function wrongType(body: Record<string, unknown>): ChatParse | undefined {
  for (const [key, lo, hi] of NUMBER_FIELDS) {
    const v = body[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < lo || v > hi)
      return refuse(`'${key}' must be a number from ${lo} to ${hi}`, key);
  }
  for (const key of ['max_tokens', 'max_completion_tokens', 'n']) {
    const v = body[key];
    if (v !== undefined && v !== null && (typeof v !== 'number' || !Number.isInteger(v) || v < 1))
      return refuse(`'${key}' must be a whole number of at least 1`, key);
  }
  for (const key of ['stream', 'parallel_tool_calls', 'logprobs', 'store']) {
    const v = body[key];
    if (v !== undefined && v !== null && typeof v !== 'boolean') return refuse(`'${key}' must be a boolean`, key);
  }
  if (body.stream_options !== undefined && body.stream_options !== null && !isRecord(body.stream_options))
    return refuse("'stream_options' must be an object", 'stream_options');
  if (body.tools !== undefined && body.tools !== null && !Array.isArray(body.tools))
    return refuse("'tools' must be an array of tool objects", 'tools');
  return undefined;
}

/** Offered function tools; an entry that is not a tool object, or a function without a name, is refused. */
function toolsIn(v: unknown): ToolDefinition[] | ChatParse {
  const out: ToolDefinition[] = [];
  for (const [i, t] of (Array.isArray(v) ? v : []).entries()) {
    if (!isRecord(t) || typeof t.type !== 'string')
      return refuse(`tools[${i}] must be an object with a 'type'`, `tools[${i}]`);
    if (t.type !== 'function') continue;
    if (!isRecord(t.function) || typeof t.function.name !== 'string' || t.function.name === '')
      return refuse(`tools[${i}].function must be an object with a 'name'`, `tools[${i}].function`);
    out.push(t as unknown as ToolDefinition);
  }
  return out;
}

/** A message's content: a string, an array of parts, or null/absent; anything else is refused. */
const contentTypeOk = (v: unknown): boolean =>
  v === undefined || v === null || typeof v === 'string' || Array.isArray(v);

/** OpenAI content may be a string or an array of parts; only text parts carry meaning here. */
function contentOf(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    return v.map((p) => (isRecord(p) && typeof p.text === 'string' ? p.text : '')).join('');
  }
  return null;
}

function toolCallsOf(v: unknown): ToolCall[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.filter(isRecord).map((c) => {
    const fn = isRecord(c.function) ? c.function : {};
    return {
      id: String(c.id ?? ''),
      type: 'function',
      function: { name: String(fn.name ?? ''), arguments: String(fn.arguments ?? '') },
    };
  });
}

/** Validates the parts of a chat request the simulator reads, and the types OpenAI checks; the rest is ignored. */
export function parseChatRequest(body: unknown): ChatParse {
  if (!isRecord(body)) return refuse('the request body must be a JSON object', null);
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return refuse("'messages' must be a non-empty array", 'messages');
  const messages: ChatMessage[] = [];
  for (const [i, m] of body.messages.entries()) {
    if (!isRecord(m) || typeof m.role !== 'string')
      return refuse(`messages[${i}] must be an object with a string 'role'`, `messages[${i}]`);
    if (!['system', 'user', 'assistant', 'tool', 'developer'].includes(m.role))
      return refuse(`messages[${i}] has an unsupported role ${quoted(m.role)}`, `messages[${i}].role`);
    if (!contentTypeOk(m.content))
      return refuse(`messages[${i}].content must be a string or an array of content parts`, `messages[${i}].content`);
    if (m.role === 'tool' && (typeof m.tool_call_id !== 'string' || m.tool_call_id === ''))
      return refuse(`messages[${i}] has role 'tool' but no 'tool_call_id'`, `messages[${i}].tool_call_id`);
    const msg: ChatMessage = {
      role: m.role === 'developer' ? 'system' : (m.role as ChatMessage['role']),
      content: contentOf(m.content),
    };
    const calls = toolCallsOf(m.tool_calls);
    if (calls) msg.tool_calls = calls;
    if (typeof m.tool_call_id === 'string') msg.tool_call_id = m.tool_call_id;
    messages.push(msg);
  }
  if (body.model === undefined) return refuse("'model' is required", 'model');
  const typed = wrongType(body);
  if (typed !== undefined) return typed;
  const tools = toolsIn(body.tools);
  if (!Array.isArray(tools)) return tools;
  const choice = readToolChoice(body.tool_choice, tools);
  if (!choice.ok) return refuse(choice.message, 'tool_choice');
  const includeUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
  return {
    ok: true,
    value: {
      model: body.model,
      messages,
      stream: body.stream === true,
      tools,
      includeUsage,
      toolChoice: choice.choice,
    },
  };
}

/**
 * A user message that is only a tagged block a client injects as context (codex's
 * `<environment_context>`, `<user_instructions>`, a `<system-reminder>`): not a turn of the
 * conversation, so never the question nor "the earlier question".
 */
const INJECTED_CONTEXT = /^\s*<([A-Za-z][\w-]*)>[\s\S]*<\/\1>\s*$/;

export const isInjectedContext = (m: ChatMessage): boolean =>
  m.role === 'user' && INJECTED_CONTEXT.test(m.content ?? '');

/** The content of the last `user` message that is a turn ('' when there is none). */
export function lastUserContent(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === 'user' && !isInjectedContext(m)) return m.content ?? '';
  }
  return '';
}

/** Tool results sent after the last user message, named by the assistant call they answer. */
export function toolResultsOf(messages: readonly ChatMessage[]): Array<{ name: string; content: string }> {
  const lastUser = messages.findLastIndex((m) => m.role === 'user' && !isInjectedContext(m));
  const names = new Map<string, string>();
  for (const m of messages) for (const c of m.tool_calls ?? []) names.set(c.id, c.function.name);
  return messages
    .slice(lastUser + 1)
    .filter((m) => m.role === 'tool')
    .map((m) => ({ name: names.get(m.tool_call_id ?? '') ?? 'tool', content: m.content ?? '' }));
}

/** The first user question of a multi-turn thread, for "builds on the earlier question". */
export function earlierQuestion(messages: readonly ChatMessage[]): string {
  const users = messages.filter((m) => m.role === 'user' && (m.content ?? '').trim() !== '' && !isInjectedContext(m));
  return users.length > 1 ? (users[0]?.content ?? '') : '';
}

/** Every `tool` message after the last user message, by the call id it answers. */
export function toolAnswersOf(messages: readonly ChatMessage[]): Array<{ id: string; content: string }> {
  const lastUser = messages.findLastIndex((m) => m.role === 'user' && !isInjectedContext(m));
  return messages
    .slice(lastUser + 1)
    .filter((m) => m.role === 'tool' && m.tool_call_id !== undefined)
    .map((m) => ({ id: m.tool_call_id ?? '', content: m.content ?? '' }));
}

import type { ChatMessage, ToolCall, ToolDefinition } from '../protocol/wire.js';
import { isRecord } from './http-util.js';
import { quoted } from './quote.js';

export interface ChatRequestIn {
  model: unknown;
  messages: ChatMessage[];
  stream: boolean;
  tools: ToolDefinition[];
  /** `stream_options.include_usage`: a last chunk with `choices: []` and `usage`. */
  includeUsage: boolean;
}

export type ChatParse = { ok: true; value: ChatRequestIn } | { ok: false; message: string };

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

/** Validates the parts of a chat request the simulator reads; everything else is ignored. */
export function parseChatRequest(body: unknown): ChatParse {
  if (!isRecord(body)) return { ok: false, message: 'the request body must be a JSON object' };
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return { ok: false, message: "'messages' must be a non-empty array" };
  const messages: ChatMessage[] = [];
  for (const [i, m] of body.messages.entries()) {
    if (!isRecord(m) || typeof m.role !== 'string')
      return { ok: false, message: `messages[${i}] must be an object with a string 'role'` };
    if (!['system', 'user', 'assistant', 'tool', 'developer'].includes(m.role))
      return { ok: false, message: `messages[${i}] has an unsupported role ${quoted(m.role)}` };
    const msg: ChatMessage = {
      role: m.role === 'developer' ? 'system' : (m.role as ChatMessage['role']),
      content: contentOf(m.content),
    };
    const calls = toolCallsOf(m.tool_calls);
    if (calls) msg.tool_calls = calls;
    if (typeof m.tool_call_id === 'string') msg.tool_call_id = m.tool_call_id;
    messages.push(msg);
  }
  if (body.model === undefined) return { ok: false, message: "'model' is required" };
  const tools = Array.isArray(body.tools)
    ? body.tools.filter(
        (t): t is ToolDefinition => isRecord(t) && isRecord(t.function) && typeof t.function.name === 'string',
      )
    : [];
  const includeUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
  return { ok: true, value: { model: body.model, messages, stream: body.stream === true, tools, includeUsage } };
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

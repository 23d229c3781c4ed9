import type { ChatMessage, ToolCall, ToolDefinition } from '../../protocol/wire.js';
import { isRecord } from '../http-util.js';
import { quoted } from '../quote.js';

/** An input item as a client sent it, or as the server kept it from an earlier response. */
export type InputItem = Record<string, unknown>;

/**
 * The input as chat messages, and the tools its `additional_tools` items offer beyond the
 * request's `tools` (codex sends the MCP tools a `tool_search` found that way).
 */
export type InputParse = { ok: true; messages: ChatMessage[]; tools: unknown[] } | { ok: false; message: string };

/** Message content: a string, or parts of which only the text ones carry meaning here. */
function textOf(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  return content.map((p) => (isRecord(p) && typeof p.text === 'string' ? p.text : '')).join('');
}

const ROLES: Record<string, ChatMessage['role']> = {
  user: 'user',
  assistant: 'assistant',
  system: 'system',
  developer: 'system',
};

/**
 * Responses API input (a string, or a list of message, `function_call`,
 * `function_call_output`, `item_reference` and `additional_tools` items) as chat messages, so
 * one job runner serves both surfaces. Reasoning items carry nothing the council reads and are
 * skipped.
 */
export function inputToMessages(input: unknown, lookup: (id: string) => InputItem | undefined): InputParse {
  if (typeof input === 'string') return { ok: true, messages: [{ role: 'user', content: input }], tools: [] };
  if (!Array.isArray(input)) return { ok: false, message: "'input' must be a string or an array of items" };
  const out: ChatMessage[] = [];
  const tools: unknown[] = [];
  for (const [i, raw] of input.entries()) {
    let item: unknown = raw;
    if (isRecord(item) && item.type === 'item_reference') {
      const found = typeof item.id === 'string' ? lookup(item.id) : undefined;
      if (found === undefined)
        return { ok: false, message: `input[${i}] refers to an unknown item ${quoted(item.id)}` };
      item = found;
    }
    if (!isRecord(item)) return { ok: false, message: `input[${i}] must be an object` };
    const type = item.type ?? 'message';
    if (type === 'message') {
      const role = typeof item.role === 'string' ? ROLES[item.role] : undefined;
      if (role === undefined) return { ok: false, message: `input[${i}] has an unsupported role ${quoted(item.role)}` };
      out.push({ role, content: textOf(item.content) });
    } else if (type === 'function_call') {
      const call: ToolCall = {
        id: String(item.call_id ?? ''),
        type: 'function',
        function: { name: String(item.name ?? ''), arguments: String(item.arguments ?? '') },
      };
      const last = out[out.length - 1];
      // Parallel calls of one turn are one assistant message on the chat surface.
      if (last?.role === 'assistant' && last.tool_calls !== undefined && last.content === null)
        last.tool_calls.push(call);
      else out.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (type === 'function_call_output') {
      const output = typeof item.output === 'string' ? item.output : JSON.stringify(item.output ?? '');
      out.push({ role: 'tool', content: output, tool_call_id: String(item.call_id ?? '') });
    } else if (type === 'additional_tools') {
      if (!Array.isArray(item.tools))
        return { ok: false, message: `input[${i}].tools must be an array of tool objects` };
      tools.push(...(item.tools as unknown[]));
    } else if (type !== 'reasoning') {
      return { ok: false, message: `input[${i}] has an unsupported type ${quoted(type)}` };
    }
  }
  return { ok: true, messages: out, tools };
}

/**
 * Responses tools are flat (`{type, name, parameters}`); chat tools nest them under `function`,
 * which is read too (an `additional_tools` item may carry either).
 */
export function toolsOf(tools: unknown): ToolDefinition[] {
  if (!Array.isArray(tools)) return [];
  return tools
    .filter(isRecord)
    .map((t) => (t.type === 'function' && isRecord(t.function) ? { type: 'function', ...t.function } : t))
    .filter((t) => t.type === 'function' && typeof t.name === 'string')
    .map((t) => ({
      type: 'function',
      function: {
        name: String(t.name),
        ...(typeof t.description === 'string' ? { description: t.description } : {}),
        ...(isRecord(t.parameters) ? { parameters: t.parameters } : {}),
      },
    }));
}

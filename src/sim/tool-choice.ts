import type { ToolDefinition } from '../protocol/wire.js';
import { isRecord } from './http-util.js';
import { quoted } from './quote.js';

/**
 * What the request's `tool_choice` lets the council do, as OpenAI defines it: `auto` (call a
 * tool when the question names one), `none` (never call), `required` (always call one), or a
 * named function (always call that one). LangChain's `withStructuredOutput(method:
 * "functionCalling")` forces a function and reads its arguments; it fails on prose.
 */
export type ToolChoice =
  { kind: 'auto' } | { kind: 'none' } | { kind: 'required' } | { kind: 'function'; name: string };

export type ToolChoiceRead = { ok: true; choice: ToolChoice } | { ok: false; message: string };

/** The function name of a forced choice: chat's `{function: {name}}` or the Responses API's flat `{name}`. */
function forcedName(v: Record<string, unknown>): unknown {
  return isRecord(v.function) ? v.function.name : v.name;
}

/**
 * Reads `tool_choice` against the offered tools. A forced name that is not offered, or a
 * `required` with no tools, is refused as OpenAI refuses it; `allowed_tools` counts as its mode.
 */
export function readToolChoice(v: unknown, tools: readonly ToolDefinition[]): ToolChoiceRead {
  if (v === undefined || v === null || v === 'auto') return { ok: true, choice: { kind: 'auto' } };
  if (v === 'none') return { ok: true, choice: { kind: 'none' } };
  if (v === 'required') {
    if (tools.length === 0) return { ok: false, message: '\'tool_choice\' is "required" but no tools were given' };
    return { ok: true, choice: { kind: 'required' } };
  }
  if (isRecord(v) && v.type === 'function') {
    const name = forcedName(v);
    if (typeof name !== 'string' || name === '')
      return { ok: false, message: "'tool_choice' of type function must name the function" };
    if (!tools.some((t) => t.function.name === name))
      return { ok: false, message: `'tool_choice' names function ${quoted(name)}, which is not in 'tools'` };
    return { ok: true, choice: { kind: 'function', name } };
  }
  if (isRecord(v) && v.type === 'allowed_tools') {
    const mode = isRecord(v.allowed_tools) ? v.allowed_tools.mode : v.mode;
    return readToolChoice(mode === 'required' ? 'required' : 'auto', tools);
  }
  return {
    ok: false,
    message: '\'tool_choice\' must be "none", "auto", "required" or {"type": "function", ...}',
  };
}

import { randomBytes } from 'node:crypto';
import type { ToolCall, ToolDefinition } from '../protocol/wire.js';
import { isRecord } from './http-util.js';
import type { TextContext } from './text-context.js';

/** An arithmetic expression in the question (`2+2`, `12 * 7`), which a calculator tool is asked. */
const ARITHMETIC = /\d+(?:\.\d+)?(?:\s*[-+*/]\s*\d+(?:\.\d+)?)+/;

/** The question the council puts to a person through `ask_user`, with the choices it sees. */
function askUserArguments(text: TextContext): Record<string, unknown> {
  return { question: `Which matters more for ${text.topic}: ${text.t1} or ${text.t2}?`, options: [text.t1, text.t2] };
}

/** Arguments that fit the tool's JSON Schema well enough to be plausible, built from the question. */
function argumentsFor(tool: ToolDefinition, text: TextContext): Record<string, unknown> {
  if (tool.function.name === ASK_USER) return askUserArguments(text);
  const props = tool.function.parameters?.properties;
  const expr = ARITHMETIC.exec(text.question)?.[0];
  if (!isRecord(props) || Object.keys(props).length === 0) return { input: expr ?? text.question };
  const terms = [text.t1, text.t2, text.t3];
  const args: Record<string, unknown> = {};
  let strings = 0;
  for (const [key, schema] of Object.entries(props)) {
    const type = isRecord(schema) ? schema.type : undefined;
    if (type === 'number' || type === 'integer') args[key] = 1;
    else if (type === 'boolean') args[key] = true;
    else if (type === 'array') args[key] = [text.t1];
    else if (type === 'object') args[key] = {};
    else if (strings++ === 0) args[key] = expr ?? text.question;
    else args[key] = terms[(strings - 2) % terms.length] ?? text.topic;
  }
  return args;
}

export const ASK_USER = 'ask_user';

/** A question that asks for the person's view ("ask me", "check with me") makes the council call ask_user. */
const ASKS_THE_PERSON = /\bask (?:me|the user)\b|\bcheck with me\b/i;

/**
 * The council calls a client tool when the request offers tools and the question names one
 * (or, for `ask_user`, asks to be asked), unless this request already carries tool results.
 */
export function planToolCall(
  tools: readonly ToolDefinition[],
  question: string,
  hasResults: boolean,
  text: TextContext,
): ToolCall | undefined {
  if (hasResults || tools.length === 0) return undefined;
  const named = (t: ToolDefinition): boolean => t.function.name !== '' && question.includes(t.function.name);
  const asked = (t: ToolDefinition): boolean => t.function.name === ASK_USER && ASKS_THE_PERSON.test(question);
  const tool = tools.find(named) ?? tools.find(asked);
  if (!tool) return undefined;
  return {
    id: `call_${randomBytes(12).toString('hex')}`,
    type: 'function',
    function: { name: tool.function.name, arguments: JSON.stringify(argumentsFor(tool, text)) },
  };
}

/** The native `user_tools` entries as the function tools the planner reads. */
export function fromUserTools(list: unknown): ToolDefinition[] {
  if (!Array.isArray(list)) return [];
  return list
    .filter((t): t is Record<string, unknown> => isRecord(t) && typeof t.name === 'string' && t.name !== '')
    .map((t) => {
      const fn: ToolDefinition['function'] = { name: String(t.name) };
      if (typeof t.description === 'string') fn.description = t.description;
      if (isRecord(t.parameters)) fn.parameters = t.parameters;
      return { type: 'function', function: fn };
    });
}

/** The `call-tool=NAME` fault: a call to NAME with no arguments, whatever was offered. */
export function forcedToolCall(name: string | undefined): ToolCall | undefined {
  if (name === undefined) return undefined;
  return { id: `call_${randomBytes(12).toString('hex')}`, type: 'function', function: { name, arguments: '{}' } };
}

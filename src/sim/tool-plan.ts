import { randomBytes } from 'node:crypto';
import type { ToolCall, ToolDefinition } from '../protocol/wire.js';
import { isRecord } from './http-util.js';
import { ARITHMETIC } from './question-hints.js';
import { valueForSchema } from './schema-value.js';
import { type TextContext, shorten } from './text-context.js';
import type { ToolChoice } from './tool-choice.js';

/** The question the council puts to a person through `ask_user`, with the choices it sees. */
function askUserArguments(text: TextContext): Record<string, unknown> {
  return { question: `Which matters more for ${text.topic}: ${text.t1} or ${text.t2}?`, options: [text.t1, text.t2] };
}

/**
 * Arguments that validate against the tool's JSON Schema, as a model's would: required fields,
 * types, enums and closed objects honoured, values drawn from the question, optional fields
 * only sometimes filled; a tool without parameters gets `{}`. An open object schema that names
 * no fields at all (what `--tool NAME=PROGRAM` declares) leaves the choice to the council, which
 * sends the question's arithmetic, or the question, as `input` (README: giving the council tools).
 */
function argumentsFor(tool: ToolDefinition, text: TextContext, seed: string): Record<string, unknown> {
  if (tool.function.name === ASK_USER) return askUserArguments(text);
  const schema = tool.function.parameters;
  if (schema === undefined) return {};
  if (openObject(schema)) return { input: ARITHMETIC.exec(text.question)?.[0] ?? shorten(text.question, 200) };
  // The request's tools were tried before the job started (schema-bounds.ts); a value too large
  // for this seed alone is sent as no arguments.
  const made = valueForSchema(schema, text.question, `${seed}\u0000${tool.function.name}`);
  return made.ok && isRecord(made.value) ? made.value : {};
}

/** `{"type": "object"}` and nothing that would constrain or name a field. */
const openObject = (s: Record<string, unknown>): boolean =>
  Object.keys(s).every((k) => k === 'type' || k === 'description' || k === '$schema') && s.type === 'object';

export const ASK_USER = 'ask_user';

/** A question that asks for the person's view ("ask me", "check with me") makes the council call ask_user. */
const ASKS_THE_PERSON = /\bask (?:me|the user)\b|\bcheck with me\b/i;

/**
 * The council calls a client tool when the request offers tools and the question names one
 * (or, for `ask_user`, asks to be asked), unless this request already carries tool results —
 * under `tool_choice: "auto"`. `none` never calls; a forced function is called whatever the
 * question says; `required` calls the tool the question names, else the first offered.
 */
export function planToolCall(
  tools: readonly ToolDefinition[],
  question: string,
  hasResults: boolean,
  text: TextContext,
  seed: string,
  choice: ToolChoice = { kind: 'auto' },
): ToolCall | undefined {
  if (choice.kind === 'none' || tools.length === 0) return undefined;
  const named = (t: ToolDefinition): boolean => t.function.name !== '' && question.includes(t.function.name);
  const asked = (t: ToolDefinition): boolean => t.function.name === ASK_USER && ASKS_THE_PERSON.test(question);
  const tool =
    choice.kind === 'function'
      ? tools.find((t) => t.function.name === choice.name)
      : choice.kind === 'required'
        ? (tools.find(named) ?? tools.find(asked) ?? tools[0])
        : hasResults
          ? undefined
          : (tools.find(named) ?? tools.find(asked));
  if (!tool) return undefined;
  return {
    id: `call_${randomBytes(12).toString('hex')}`,
    type: 'function',
    function: { name: tool.function.name, arguments: JSON.stringify(argumentsFor(tool, text, seed)) },
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

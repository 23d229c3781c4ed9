import { randomBytes } from 'node:crypto';
import type { ToolCall, ToolDefinition } from '../protocol/wire.js';
import { isRecord } from './http-util.js';
import { ARITHMETIC } from './question-hints.js';
import { valueForSchema } from './schema-value.js';
import { type TextContext, shorten, textContext } from './text-context.js';
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

/**
 * The tool codex offers in place of its MCP tools: the model searches, codex answers with the
 * tools found and offers them in its next request (an `additional_tools` input item).
 */
export const TOOL_SEARCH = 'tool_search';

/** "use the deliberate tool", "call `deliberate` tool": the tool a question asks for by name. */
const ASKS_FOR_TOOL =
  /\b(?:use|call|run|invoke|try)\s+(?:the\s+|your\s+|nsed'?s?\s+)*[`'"]?([A-Za-z][\w.-]*)[`'"]?\s+(?:mcp\s+)?tool\b/i;

/**
 * Whether the question names the tool: its whole name, or for an MCP tool as a host names it
 * (`mcp__nsed__deliberate`) the tool's own name as a word (`deliberate`).
 */
function namedIn(question: string, name: string): boolean {
  if (name === '') return false;
  if (question.includes(name)) return true;
  const own = name.includes('__') ? (name.split('__').at(-1) ?? '') : '';
  return own !== '' && new RegExp(`\\b${own.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i').test(question);
}

/** A question that asks for the person's view ("ask me", "check with me") makes the council call ask_user. */
const ASKS_THE_PERSON = /\bask (?:me|the user)\b|\bcheck with me\b/i;

/**
 * The council calls a client tool when the request offers tools and the question names one
 * (or, for `ask_user`, asks to be asked), unless this request already carries tool results —
 * under `tool_choice: "auto"`. `none` never calls; a forced function is called whatever the
 * question says; `required` calls the tool the question names, else the first offered. A tool
 * the question asks for that is not offered is searched for with `tool_search` when that is
 * offered (codex); results of that search alone do not end the turn: the tool found is called.
 */
export function planToolCall(
  tools: readonly ToolDefinition[],
  question: string,
  results: ReadonlyArray<{ name: string }>,
  text: TextContext,
  seed: string,
  choice: ToolChoice = { kind: 'auto' },
): ToolCall | undefined {
  if (choice.kind === 'none' || tools.length === 0) return undefined;
  const named = (t: ToolDefinition): boolean => t.function.name !== TOOL_SEARCH && namedIn(question, t.function.name);
  const asked = (t: ToolDefinition): boolean => t.function.name === ASK_USER && ASKS_THE_PERSON.test(question);
  const searchedOnly = results.length > 0 && results.every((r) => r.name === TOOL_SEARCH);
  const answered = results.length > 0 && !searchedOnly;
  const tool =
    choice.kind === 'function'
      ? tools.find((t) => t.function.name === choice.name)
      : choice.kind === 'required'
        ? (tools.find(named) ?? tools.find(asked) ?? tools[0])
        : answered
          ? undefined
          : (tools.find(named) ?? tools.find(asked));
  if (tool === undefined && choice.kind === 'auto' && !answered && !searchedOnly)
    return searchCall(tools, question, seed);
  if (!tool) return undefined;
  return {
    id: `call_${randomBytes(12).toString('hex')}`,
    type: 'function',
    function: { name: tool.function.name, arguments: JSON.stringify(argumentsFor(tool, text, seed)) },
  };
}

/** A `tool_search` call for the tool the question asks for, when search is offered; its query is that name. */
function searchCall(tools: readonly ToolDefinition[], question: string, seed: string): ToolCall | undefined {
  const search = tools.find((t) => t.function.name === TOOL_SEARCH);
  const wanted = ASKS_FOR_TOOL.exec(question)?.[1];
  if (search === undefined || wanted === undefined) return undefined;
  const args = argumentsFor(search, textContext(wanted, ''), seed);
  return {
    id: `call_${randomBytes(12).toString('hex')}`,
    type: 'function',
    function: { name: TOOL_SEARCH, arguments: JSON.stringify(args) },
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

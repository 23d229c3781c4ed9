import { randomBytes } from 'node:crypto';
import type { ChatMessage } from '../../protocol/wire.js';
import { type AnswerFormat, responsesAnswerFormat } from '../answer-format.js';
import { isRecord } from '../http-util.js';
import { lastUserContent } from '../chat-request.js';
import { quoted } from '../quote.js';
import { schemaProblem } from '../schema-bounds.js';
import { readToolChoice, type ToolChoice } from '../tool-choice.js';
import { inputToMessages, toolsOf } from './input.js';
import type { ResponseStore } from './store.js';

/** A Responses request read into the thread it continues and the fields its response echoes. */
export interface ResponsesPlan {
  model: string;
  messages: ChatMessage[];
  previous: string | null;
  instructions: string | null;
  tools: unknown[];
  /** Tools the input's `additional_tools` items offer beyond `tools` (codex, after a `tool_search`). */
  extraTools: unknown[];
  stream: boolean;
  /** The thread's identity across `previous_response_id` follow-ups (the `schema=violate-once` fault). */
  thread: string;
  /** The thread's `reasoning.effort`, fixed by its first request. */
  effort: string | null;
  /** Progress is shown as a reasoning item only when the request asked for reasoning. */
  reasoning: boolean;
  maxOutputTokens: number | null;
  /** `store: false`: the response is not kept for `previous_response_id` or `item_reference`. */
  store: boolean;
  format: AnswerFormat | undefined;
  /** What the response object echoes of the request. */
  echo: Record<string, unknown>;
  toolChoice: ToolChoice;
}

export interface RequestError {
  status: number;
  message: string;
  param: string | null;
  code: string;
}

export type PlanResult = { ok: true; plan: ResponsesPlan } | { ok: false; error: RequestError };

const bad = (message: string, param: string | null = null): PlanResult => ({
  ok: false,
  error: { status: 400, message, param, code: 'invalid_request' },
});

/** A number field within [lo, hi] (or absent): its value, or the error naming it. */
function bounded(body: Record<string, unknown>, key: string, lo: number, hi: number): number | null | PlanResult {
  const v = body[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < lo || v > hi)
    return bad(`'${key}' must be a number from ${lo} to ${hi}`, key);
  return v;
}

/**
 * Reads a `POST /v1/responses` body: the thread it continues (a follow-up keeps the model and
 * the reasoning effort of its thread, as the seeds' parameter lock says), the input as chat
 * messages, and the request fields OpenAI's response object echoes.
 */
export function readResponsesRequest(raw: unknown, store: ResponseStore, honourFormat: boolean): PlanResult {
  if (!isRecord(raw)) return bad('the request body must be a JSON object');
  const body = raw;
  if (typeof body.model !== 'string' || body.model === '') return bad("'model' is required", 'model');
  for (const key of ['stream', 'store', 'parallel_tool_calls', 'background'])
    if (body[key] !== undefined && body[key] !== null && typeof body[key] !== 'boolean')
      return bad(`'${key}' must be a boolean`, key);
  if (body.tools !== undefined && body.tools !== null && !Array.isArray(body.tools))
    return bad("'tools' must be an array of tool objects", 'tools');
  if (body.input !== undefined && typeof body.input !== 'string' && !Array.isArray(body.input))
    return bad("'input' must be a string or an array of input items", 'input');
  const choice = readToolChoice(body.tool_choice, toolsOf(body.tools));
  if (!choice.ok) return bad(choice.message, 'tool_choice');
  const reasoningIn = isRecord(body.reasoning) ? body.reasoning : undefined;
  const effortIn = typeof reasoningIn?.effort === 'string' ? reasoningIn.effort : undefined;
  let thread: ChatMessage[] = [];
  let previous: string | null = null;
  let threadKey = `resp-thread-${randomBytes(8).toString('hex')}`;
  let effort = effortIn ?? null;
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    previous = String(body.previous_response_id);
    const held = store.get(previous);
    if (held === undefined)
      return {
        ok: false,
        error: {
          status: 404,
          message: `Previous response with id ${quoted(previous)} not found.`,
          param: 'previous_response_id',
          code: 'previous_response_not_found',
        },
      };
    // The seed: a Responses thread is parameter-locked; a follow-up cannot change the policy or the effort.
    if (held.model !== body.model)
      return bad(
        `this thread is locked to model ${quoted(held.model)}; start a new thread (no previous_response_id) to use ${quoted(body.model)}`,
        'model',
      );
    if (effortIn !== undefined && effortIn !== held.effort)
      return bad(
        `this thread is locked to reasoning effort ${held.effort === null ? 'unset' : quoted(held.effort)}; a follow-up cannot change it (start a new thread)`,
        'reasoning.effort',
      );
    effort = held.effort;
    thread = held.thread;
    threadKey = held.threadKey;
  }
  const input = inputToMessages(body.input, (id) => store.item(id));
  if (!input.ok) return bad(input.message, 'input');
  const instructions = typeof body.instructions === 'string' && body.instructions !== '' ? body.instructions : null;
  const messages = [
    ...(instructions === null ? [] : [{ role: 'system' as const, content: instructions }]),
    ...thread,
    ...input.messages,
  ];
  if (!messages.some((m) => m.role === 'user')) return bad("'input' must hold at least one user message", 'input');
  const temperature = bounded(body, 'temperature', 0, 2);
  if (typeof temperature === 'object' && temperature !== null) return temperature;
  const topP = bounded(body, 'top_p', 0, 1);
  if (typeof topP === 'object' && topP !== null) return topP;
  const max = body.max_output_tokens;
  if (max !== undefined && max !== null && (typeof max !== 'number' || !Number.isInteger(max) || max < 16))
    return bad("'max_output_tokens' must be a whole number of at least 16", 'max_output_tokens');
  const format = honourFormat ? responsesAnswerFormat(body) : { ok: true as const, format: undefined };
  if (!format.ok) return bad(format.message, 'text.format');
  const offered = toolsOf([...(Array.isArray(body.tools) ? body.tools : []), ...input.tools]);
  const tooLarge = schemaProblem(lastUserContent(messages), format.format, 'text.format', offered);
  if (tooLarge !== undefined) return bad(tooLarge.message, tooLarge.param);
  const include = Array.isArray(body.include) ? body.include : [];
  const stored = body.store !== false;
  const echo: Record<string, unknown> = {
    store: stored,
    ...(temperature === null ? {} : { temperature }),
    ...(topP === null ? {} : { top_p: topP }),
    ...(typeof max === 'number' ? { max_output_tokens: max } : {}),
    reasoning: { effort, summary: typeof reasoningIn?.summary === 'string' ? reasoningIn.summary : null },
  };
  for (const key of ['tool_choice', 'parallel_tool_calls', 'truncation', 'user', 'service_tier', 'prompt_cache_key'])
    if (body[key] !== undefined && body[key] !== null) echo[key] = body[key];
  if (isRecord(body.metadata)) echo.metadata = body.metadata;
  if (format.format !== undefined && isRecord(body.text)) echo.text = { verbosity: 'medium', ...body.text };
  return {
    ok: true,
    plan: {
      model: body.model,
      messages,
      previous,
      instructions,
      tools: Array.isArray(body.tools) ? body.tools : [],
      extraTools: input.tools,
      stream: body.stream === true,
      thread: threadKey,
      effort,
      reasoning: reasoningIn !== undefined || include.some((i) => typeof i === 'string' && i.includes('reasoning')),
      maxOutputTokens: typeof max === 'number' ? max : null,
      store: stored,
      format: format.format,
      echo,
      toolChoice: choice.choice,
    },
  };
}

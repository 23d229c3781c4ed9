import type { ChatCompletionRequest, ChatMessage, ToolCall } from '../protocol/wire.js';
import type { TranscriptToolCall, TranscriptToolResult } from './transcript.js';

/** A call that has an answer to replay; an expired call has none (the council went on without). */
export const replayable = (r: TranscriptToolResult | undefined): r is TranscriptToolResult =>
  r !== undefined && r.status !== 'expired';

/**
 * The messages that hand tool results back on the compat surface, in the OpenAI shape: the
 * assistant message carrying the calls, then one `tool` message per call with its id. Calls
 * without a result are left out, since every listed call must be answered.
 */
export function toolRoundMessages(
  calls: readonly TranscriptToolCall[],
  results: readonly TranscriptToolResult[],
): ChatMessage[] {
  const answered = calls.flatMap((c) => {
    const r = results.find((x) => x.id === c.id);
    return replayable(r) ? [{ call: c, result: r }] : [];
  });
  if (answered.length === 0) return [];
  const toolCalls: ToolCall[] = answered.map(({ call }) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
  return [
    { role: 'assistant', content: null, tool_calls: toolCalls },
    ...answered.map(({ call, result }): ChatMessage => ({
      role: 'tool',
      tool_call_id: call.id,
      content: result.content,
    })),
  ];
}

/** The follow-up on the same thread: the turn's request plus the tool round, tools re-sent. */
export function followUpBody(
  base: ChatCompletionRequest,
  calls: readonly TranscriptToolCall[],
  results: readonly TranscriptToolResult[],
): ChatCompletionRequest {
  return { ...base, messages: [...base.messages, ...toolRoundMessages(calls, results)] };
}

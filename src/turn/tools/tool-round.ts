import { NsedError } from '../../errors.js';
import type { ChatCompletionRequest, ChatMessage, ToolCall } from '../../protocol/wire.js';
import type { TranscriptToolCall, TranscriptToolResult } from '../../events/transcript.js';

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

/**
 * Follow-ups one compat turn may send: one per call nsed may run (--max-tool-calls) and one more
 * to hand back the refusals past it. Whatever the server asks for, the turn stops there
 * (docs/reliability.md #91).
 */
export const maxFollowUps = (maxCalls: number): number => maxCalls + 1;

/** The calls of the answer just read that have no result yet: what a follow-up would answer. */
export function openCalls(
  calls: readonly TranscriptToolCall[],
  results: readonly TranscriptToolResult[],
): TranscriptToolCall[] {
  return calls.filter((c) => !results.some((r) => r.id === c.id));
}

/**
 * A `tool_calls` ending with no call nsed could use (none at all, one without an id or a name,
 * arguments that are not JSON, or only calls already answered): a follow-up would carry nothing
 * new and be answered the same way, so the turn ends here instead (docs/reliability.md #90).
 */
export function noUsableCall(sessionId: string, jobId: string | undefined): NsedError {
  const job = jobId === undefined ? 'the orchestrator' : `deliberation ${jobId}`;
  return new NsedError(
    'server',
    `${job} ended its answer with finish_reason 'tool_calls' but sent no new tool call nsed could read (none, or one without an id or a name, or arguments that are not JSON); nothing was sent again`,
    { hint: `ask again with 'nsed continue -s ${sessionId}'` },
  );
}

/** The council still asks for tools after every follow-up the turn may send (docs/reliability.md #91). */
export function tooManyToolRounds(sessionId: string, sent: number): NsedError {
  return new NsedError(
    'server',
    `the council still asks for tools after ${sent} tool round${sent === 1 ? '' : 's'} in one turn; nsed sends no more`,
    { hint: `raise --max-tool-calls, or ask again with 'nsed continue -s ${sessionId}'` },
  );
}

import type { ChatCompletion } from '../protocol/wire.js';
import { chunk } from './chunks.js';
import type { RouteInput, SimContext } from './context.js';
import { sendJson, sendOpenAiError } from './http-util.js';
import type { Job } from './job.js';
import { streamJob } from './sse-writer.js';
import { type ChatUsage, type UsageCount, chatUsage, usageChunk } from './usage.js';

/**
 * The `chat.completion` object of a finished job, or of an answer closed by a tool call (docs/protocol.md §3.1.4),
 * with the fields OpenAI's published spec requires even when empty: the message's `refusal` and
 * the choice's `logprobs`, both null.
 */
export function completionOf(
  job: Job,
  count: UsageCount,
  at: { closedByToolCall?: boolean; from?: number } = {},
): ChatCompletion & { usage: ChatUsage } {
  const closedByToolCall = at.closedByToolCall === true;
  const finish = closedByToolCall ? 'tool_calls' : (job.finishReason ?? 'stop');
  const message: ChatCompletion['choices'][number]['message'] & { refusal: null } = {
    role: 'assistant',
    content: closedByToolCall ? null : job.answer,
    refusal: null,
  };
  if (closedByToolCall && job.toolCalls) message.tool_calls = job.toolCalls;
  const choice = { index: 0, message, logprobs: null, finish_reason: finish };
  const out: ChatCompletion & { usage: ChatUsage } = {
    id: job.stamp.id,
    object: 'chat.completion',
    created: job.stamp.created,
    model: job.stamp.model,
    choices: [choice],
    usage: chatUsage(job, at.from ?? 0, count),
  };
  if (job.info.mode !== 'deliberation') out.nsed_metadata = { mode: job.info.mode };
  return out;
}

/** Resolves once the answer a request at `from` receives has ended: the job's end or a tool call. */
export function answerEnded(job: Job, from: number): Promise<void> {
  return new Promise((resolve) => {
    const check = (): boolean => {
      if (job.segmentEnd(from) === undefined) return false;
      unwatch();
      resolve();
      return true;
    };
    const unwatch = job.watch(() => void check());
    check();
  });
}

/**
 * Answers a compat request with a job: as SSE from the job's log (full replay, then live), or,
 * for `stream: false`, as one JSON object once the answer ends. A follow-up that fed a tool
 * result starts at `from`, after the answer that asked for it. A failed job is a 500, and so
 * is a cancelled one unless it ended with its closing chunk, the ending that names cancellations.
 */
export async function respondWithJob(
  ctx: SimContext,
  rq: RouteInput,
  job: Job,
  stream: boolean,
  at: { from?: number; includeUsage?: boolean } = {},
): Promise<void> {
  const headers: Record<string, string> = job.roomless ? {} : { 'x-nsed-session-id': job.id };
  const from = at.from ?? 0;
  if (stream) {
    const prelude =
      from === 0 ? undefined : JSON.stringify(chunk(job.stamp, { role: 'assistant', nsed_session_id: job.id }));
    streamJob(rq.res, job, {
      faults: rq.faults,
      keepaliveMs: ctx.keepaliveMs,
      timers: ctx.timers,
      headers,
      view: 'segment',
      from,
      ...(prelude === undefined ? {} : { prelude }),
      ...(at.includeUsage === true
        ? { beforeDone: () => JSON.stringify(usageChunk(job, from, ctx.profile.usage)) }
        : {}),
    });
    return;
  }
  await answerEnded(job, from);
  if (job.status === 'running') {
    sendJson(rq.res, 200, completionOf(job, ctx.profile.usage, { closedByToolCall: true, from }), headers);
    return;
  }
  // Only the chunk ending invents a `cancelled` finish reason; the others leave it out.
  if (job.status === 'failed' && (job.finishReason !== 'cancelled' || job.endedWith !== 'chunk')) {
    const what =
      job.finishReason === 'cancelled' ? 'deliberation cancelled' : `deliberation failed: ${job.failure ?? 'unknown'}`;
    sendOpenAiError(
      rq.res,
      500,
      what,
      'server_error',
      job.finishReason === 'cancelled' ? 'deliberation_cancelled' : 'deliberation_failed',
      headers,
    );
    return;
  }
  sendJson(rq.res, 200, completionOf(job, ctx.profile.usage, { from }), headers);
}

import type { ChatCompletion } from '../protocol/wire.js';
import type { RouteInput, SimContext } from './context.js';
import { sendJson, sendOpenAiError } from './http-util.js';
import type { Job } from './job.js';
import { streamJob } from './sse-writer.js';

/** The `chat.completion` object of a finished job (docs/protocol.md §3.1.4). */
export function completionOf(job: Job): ChatCompletion {
  const finish = job.finishReason ?? 'stop';
  const message: ChatCompletion['choices'][number]['message'] = { role: 'assistant', content: job.answer };
  if (job.toolCalls) message.tool_calls = job.toolCalls;
  const out: ChatCompletion = { id: job.stamp.id, object: 'chat.completion', created: job.stamp.created, model: job.stamp.model, choices: [{ index: 0, message, finish_reason: finish }] };
  if (job.info.mode !== 'deliberation') out.nsed_metadata = { mode: job.info.mode };
  return out;
}

/**
 * Answers a compat request with a job: as SSE from the job's log (full replay, then live), or,
 * for `stream: false`, as one JSON object once the job is over. A failed job is a 500.
 */
export async function respondWithJob(ctx: SimContext, rq: RouteInput, job: Job, stream: boolean): Promise<void> {
  const headers = { 'x-nsed-session-id': job.id };
  if (stream) {
    streamJob(rq.res, job, { faults: rq.faults, keepaliveMs: ctx.keepaliveMs, timers: ctx.timers, headers });
    return;
  }
  await job.finished;
  if (job.status === 'failed' && job.finishReason !== 'cancelled') {
    sendOpenAiError(rq.res, 500, `deliberation failed: ${job.failure ?? 'unknown'}`, 'server_error', 'deliberation_failed', headers);
    return;
  }
  sendJson(rq.res, 200, completionOf(job), headers);
}

import type { ChatCompletionChunk } from '../protocol/wire.js';
import type { Job } from './job.js';
import { tokens } from './metering.js';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/**
 * The `usage` of a chat answer: the task and instructions in, the answer (or, for an answer that
 * ends at a tool call, the call) out. A job that is still running ended its answer at a call.
 */
export function chatUsage(job: Job): ChatUsage {
  const prompt = tokens(job.info.query) + tokens(job.info.systemInstructions ?? '');
  const out =
    job.status === 'running'
      ? (job.toolCalls ?? []).reduce((n, c) => n + tokens(c.function.name) + tokens(c.function.arguments), 0)
      : tokens(job.answer ?? '');
  return { prompt_tokens: prompt, completion_tokens: out, total_tokens: prompt + out };
}

/** The last chunk `stream_options.include_usage` asks for: no choices, the usage (as OpenAI sends it). */
export function usageChunk(job: Job): ChatCompletionChunk & { usage: ChatUsage } {
  return {
    id: job.stamp.id,
    object: 'chat.completion.chunk',
    created: job.stamp.created,
    model: job.stamp.model,
    choices: [],
    usage: chatUsage(job),
  };
}

import type { ChatCompletionChunk } from '../protocol/wire.js';
import type { Job } from './job.js';
import { tokens } from './metering.js';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/**
 * What a compat answer's `usage` counts (the seeds say nothing of it). `deliberation`: every
 * model call the council made for this answer, the totals `/budget` and `job_complete` report,
 * so an OpenAI client that adds up `usage` sees what the council cost. `exchange`: the task and
 * instructions in and the answer out, as if one model had answered.
 */
export type UsageCount = 'deliberation' | 'exchange';

/** Tokens in and out of one answer. */
export interface AnswerTokens {
  input: number;
  output: number;
}

/**
 * The tokens of the answer a request at log index `from` receives, as `count` says. A
 * deliberation's answer counts what the council used from `from` to the end of that answer (the
 * job's end, or the tool call that closed it), so the answers of a tool round trip add up to the
 * job's totals and none is counted twice. A job whose meter reports no tokens (fault
 * `meter=none`) is counted as an exchange: the simulator knows no other figure to give.
 */
export function answerTokens(job: Job, from: number, count: UsageCount): AnswerTokens {
  if (count === 'deliberation' && job.meter.reportsTokens) {
    // Marks are made where answers close at a call: the last at or before `from` opens this
    // answer, the first after it closes it; an answer still open runs to the meter as it stands.
    let base: AnswerTokens = { input: 0, output: 0 };
    let top: AnswerTokens = { input: job.meter.inputTokens, output: job.meter.outputTokens };
    for (const [at, mark] of job.meterMarks) {
      if (at <= from) base = mark;
      else {
        top = mark;
        break;
      }
    }
    return { input: top.input - base.input, output: top.output - base.output };
  }
  const input = tokens(job.info.query) + tokens(job.info.systemInstructions ?? '');
  // A job that is still running ended its answer at a call: the call is the output.
  const output =
    job.status === 'running'
      ? (job.toolCalls ?? []).reduce((n, c) => n + tokens(c.function.name) + tokens(c.function.arguments), 0)
      : tokens(job.answer ?? '');
  return { input, output };
}

/** The `usage` of a chat answer (see answerTokens). */
export function chatUsage(job: Job, from: number, count: UsageCount): ChatUsage {
  const { input, output } = answerTokens(job, from, count);
  return { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
}

/** The last chunk `stream_options.include_usage` asks for: no choices, the usage (as OpenAI sends it). */
export function usageChunk(job: Job, from: number, count: UsageCount): ChatCompletionChunk & { usage: ChatUsage } {
  return {
    id: job.stamp.id,
    object: 'chat.completion.chunk',
    created: job.stamp.created,
    model: job.stamp.model,
    choices: [],
    usage: chatUsage(job, from, count),
  };
}

import { flattenCompat } from '../protocol/flatten.js';
import type { ChatMessage, ToolDefinition } from '../protocol/wire.js';
import { earlierQuestion, lastUserContent, toolResultsOf } from './chat-request.js';
import type { SimContext } from './context.js';
import type { FaultSpec } from './faults.js';
import type { Job } from './job.js';
import type { SimPolicy } from './policies.js';
import { startJob, structuredPlan } from './start-job.js';
import type { AnswerFormat } from './answer-format.js';
import { textContext } from './text-context.js';
import type { ToolChoice } from './tool-choice.js';
import { forcedToolCall, planToolCall } from './tool-plan.js';

export interface CompatJobSpec {
  id: string;
  /** The model string as the request named it. */
  model: unknown;
  policy: SimPolicy;
  messages: ChatMessage[];
  tools: ToolDefinition[];
  /** The format asked for the final answer (`response_format`, `text.format`). */
  format?: AnswerFormat | undefined;
  /** The thread the request is on, for the `schema=violate-once` fault. */
  thread: string;
  /** The request's `tool_choice` (auto when it named none). */
  toolChoice?: ToolChoice;
}

/**
 * Starts the job a compat request (chat completions or the Responses API) asks for: the
 * messages flattened into one task, system turns set apart, tool results from the last turn
 * fed to the council, and a tool call planned when the question names an offered tool.
 */
export function startCompatJob(ctx: SimContext, faults: FaultSpec, spec: CompatJobSpec): Job {
  const { policy, messages } = spec;
  const question = lastUserContent(messages);
  const { task, instructions } = flattenCompat(messages);
  const text = textContext(question === '' ? task : question, earlierQuestion(messages));
  const toolResults = toolResultsOf(messages);
  const toolCall =
    policy.mode === 'deliberation'
      ? (forcedToolCall(faults.callTool) ??
        planToolCall(spec.tools, question, toolResults, text, String(ctx.seed), spec.toolChoice))
      : undefined;
  const structured = structuredPlan(ctx, faults, spec.format, spec.thread);
  return startJob(ctx, {
    id: spec.id,
    model: typeof spec.model === 'string' ? spec.model : `nsed:${policy.tags[0] ?? policy.name}`,
    info: {
      query: task,
      messages,
      ...(instructions.length > 0 ? { systemInstructions: instructions.join('\n\n') } : {}),
      agents: policy.agents,
      totalRounds: policy.max_rounds,
      policy: policy.policy_id,
      mode: policy.mode,
      surface: 'compat',
    },
    text,
    toolResults,
    council: faults,
    ...(faults.failAtRound === undefined ? {} : { failAtRound: faults.failAtRound }),
    ...(faults.end === undefined ? {} : { ending: faults.end }),
    ...(toolCall === undefined ? {} : { toolCall }),
    ...(structured === undefined ? {} : { structured }),
  });
}

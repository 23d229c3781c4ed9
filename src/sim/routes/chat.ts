import { flattenCompat, isBlank } from '../../protocol/flatten.js';
import { Headers } from '../../protocol/wire.js';
import { earlierQuestion, lastUserContent, parseChatRequest, toolAnswersOf, toolResultsOf } from '../chat-request.js';
import type { RouteInput, SimContext } from '../context.js';
import { parseJson, sendOpenAiError } from '../http-util.js';
import { threadBaseOf } from '../ids.js';
import { resolvePolicy } from '../policies.js';
import type { Job } from '../job.js';
import { respondWithJob } from '../respond.js';
import { startJob } from '../start-job.js';
import { textContext } from '../text-context.js';
import { forcedToolCall, planToolCall } from '../tool-plan.js';

const invalid = (rq: RouteInput, message: string): void => sendOpenAiError(rq.res, 400, message, 'invalid_request_error', 'invalid_request');

/**
 * `POST /v1/chat/completions` with the routing rule of docs/protocol.md §6.2: a request on a
 * thread whose job is running becomes an injection into that job and follows it (stream or
 * block); otherwise it starts a fresh job under the thread base (or a `room-` id).
 */
export async function handleChat(ctx: SimContext, rq: RouteInput): Promise<void> {
  const body = parseJson(rq.raw);
  if (!body.ok) return invalid(rq, 'the request body is not valid JSON');
  const parsed = parseChatRequest(body.value);
  if (!parsed.ok) return invalid(rq, parsed.message);
  const { model, messages, stream, tools } = parsed.value;
  const resolved = resolvePolicy(ctx.policies, model);
  if (!resolved.ok) return sendOpenAiError(rq.res, 404, resolved.message, 'invalid_request_error', 'model_not_found');
  const policy = resolved.policy;

  const header = rq.req.headers[Headers.opencodeSession];
  const threadHeader = typeof header === 'string' && header.trim() !== '' ? header : undefined;
  const base = threadHeader === undefined ? undefined : threadBaseOf(threadHeader);
  const question = lastUserContent(messages);
  const running = base === undefined ? undefined : ctx.jobs.runningInThread(base);
  const toolResults = toolResultsOf(messages);
  if (running) {
    // A follow-up that answers the blocked agent's call feeds it and streams what comes next;
    // anything else on a busy thread is guidance (the routing rule).
    const fed = answerCalls(running, messages);
    if (fed > 0) return respondWithJob(ctx, rq, running, stream, { from: running.log.length });
    if (!isBlank(question) && toolResults.length === 0) running.inject(question);
    return respondWithJob(ctx, rq, running, stream);
  }

  const { task, instructions } = flattenCompat(messages);
  const text = textContext(question === '' ? task : question, earlierQuestion(messages));
  const toolCall = policy.mode === 'deliberation' ? (forcedToolCall(rq.faults.callTool) ?? planToolCall(tools, question, toolResults.length > 0, text)) : undefined;
  const job = startJob(ctx, {
    id: base === undefined ? ctx.jobs.mintRoomId() : ctx.jobs.mintThreadJobId(base, Date.now()),
    model: typeof model === 'string' ? model : `nsed:${policy.tags[0] ?? policy.name}`,
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
    ...(rq.faults.failAtRound === undefined ? {} : { failAtRound: rq.faults.failAtRound }),
    ...(rq.faults.end === undefined ? {} : { ending: rq.faults.end }),
    ...(toolCall === undefined ? {} : { toolCall }),
  });
  return respondWithJob(ctx, rq, job, stream);
}

/** Answers the job's pending calls that this request's `tool` messages name; returns how many. */
function answerCalls(job: Job, messages: Parameters<typeof toolAnswersOf>[0]): number {
  let fed = 0;
  for (const a of toolAnswersOf(messages)) if (job.tools.answer(a.id, a.content) === 'responded') fed += 1;
  return fed;
}

import { isBlank } from '../../protocol/flatten.js';
import { Headers } from '../../protocol/wire.js';
import { lastUserContent, parseChatRequest, toolAnswersOf, toolResultsOf } from '../chat-request.js';
import { startCompatJob } from '../compat-job.js';
import type { RouteInput, SimContext } from '../context.js';
import { parseJson, sendOpenAiError } from '../http-util.js';
import { threadBaseOf } from '../ids.js';
import { dedupKey } from '../dedup.js';
import { isRecord } from '../http-util.js';
import { chatAnswerFormat } from '../answer-format.js';
import { resolvePolicy } from '../policies.js';
import { schemaProblem } from '../schema-bounds.js';
import type { Job } from '../job.js';
import { respondWithJob } from '../respond.js';

const invalid = (rq: RouteInput, message: string, param: string | null = null): void =>
  sendOpenAiError(rq.res, 400, message, 'invalid_request_error', 'invalid_request', {}, param);

/**
 * `POST /v1/chat/completions`. With dedup on, an identical request is answered from its job
 * first. Then the routing rule of docs/protocol.md §6.2: a request on a thread whose job is running becomes an
 * injection into that job and follows it (stream or block), unless it names another policy,
 * which starts a fresh job (the seed); otherwise a fresh job under the thread base (or a
 * `room-` id). A `response_format` shapes the fresh job's final answer (default profile).
 */
export async function handleChat(ctx: SimContext, rq: RouteInput): Promise<void> {
  const body = parseJson(rq.raw);
  if (!body.ok) return invalid(rq, 'the request body is not valid JSON');
  const parsed = parseChatRequest(body.value);
  if (!parsed.ok) return invalid(rq, parsed.message, parsed.param);
  const { model, messages, stream, tools, includeUsage, toolChoice } = parsed.value;
  const asked = ctx.profile.answerFormat && isRecord(body.value) ? chatAnswerFormat(body.value) : undefined;
  if (asked?.ok === false) return invalid(rq, asked.message, 'response_format');
  const format = asked?.format;
  const tooLarge = schemaProblem(lastUserContent(messages), format, 'response_format', tools);
  if (tooLarge !== undefined) return invalid(rq, tooLarge.message, tooLarge.param);
  const resolved = resolvePolicy(ctx.policies, model);
  if (!resolved.ok)
    return sendOpenAiError(rq.res, 404, resolved.message, 'invalid_request_error', 'model_not_found', {}, 'model');
  const policy = resolved.policy;

  const header = rq.req.headers[Headers.opencodeSession];
  const threadHeader = typeof header === 'string' && header.trim() !== '' ? header : undefined;
  const base = threadHeader === undefined ? undefined : threadBaseOf(threadHeader);
  const key =
    ctx.dedup === undefined || !isRecord(body.value)
      ? undefined
      : dedupKey({
          surface: 'chat',
          model,
          messages: body.value.messages,
          tools: body.value.tools,
          thread: base,
          format,
          ...(toolChoice.kind === 'auto' ? {} : { toolChoice }),
        });
  const cached = key === undefined ? undefined : ctx.dedup?.hitAt(key);
  if (cached) return respondWithJob(ctx, rq, cached.job, stream, { from: cached.from, includeUsage });

  const question = lastUserContent(messages);
  const live = base === undefined ? undefined : ctx.jobs.runningInThread(base);
  // The seed: "a changed policy_id deliberately forces a fresh deliberation".
  const running = live?.info.policy === policy.policy_id ? live : undefined;
  const toolResults = toolResultsOf(messages);
  if (running) {
    // A follow-up that answers the blocked agent's call feeds it and streams what comes next;
    // anything else on a busy thread is guidance (the routing rule).
    const fed = answerCalls(running, messages);
    if (fed > 0) {
      // A repeat of this follow-up (dedup on) gets the same answer: the same job, from here.
      const from = running.log.length;
      if (key !== undefined) ctx.dedup?.claim(key, running, from);
      return respondWithJob(ctx, rq, running, stream, { from, includeUsage });
    }
    if (!isBlank(question) && toolResults.length === 0) running.inject(question);
    return respondWithJob(ctx, rq, running, stream, { includeUsage });
  }

  const id = base === undefined ? ctx.jobs.mintRoomId() : ctx.jobs.mintThreadJobId(base, Date.now());
  const job = startCompatJob(ctx, rq.faults, {
    id,
    model,
    policy,
    messages,
    tools,
    format,
    thread: base ?? id,
    toolChoice,
  });
  if (key !== undefined) ctx.dedup?.claim(key, job);
  return respondWithJob(ctx, rq, job, stream, { includeUsage });
}

/** Answers the job's pending calls that this request's `tool` messages name; returns how many. */
function answerCalls(job: Job, messages: Parameters<typeof toolAnswersOf>[0]): number {
  let fed = 0;
  for (const a of toolAnswersOf(messages)) if (job.tools.answer(a.id, a.content) === 'responded') fed += 1;
  return fed;
}

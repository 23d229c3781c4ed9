import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { ChatCompletionChunk, ChatMessage } from '../../protocol/wire.js';
import { toolAnswersOf, toolResultsOf } from '../chat-request.js';
import { startCompatJob } from '../compat-job.js';
import type { RouteInput, SimContext } from '../context.js';
import { dedupKey } from '../dedup.js';
import { parseJson, sendJson, sendOpenAiError } from '../http-util.js';
import { DONE, type Job } from '../job.js';
import { type SimPolicy, resolvePolicy } from '../policies.js';
import { answerEnded } from '../respond.js';
import { ResponseBuilder, type ResponseEvent } from '../responses/builder.js';
import { toolsOf } from '../responses/input.js';
import { type ResponsesPlan as Plan, readResponsesRequest } from '../responses/request.js';
import type { HeldResponse } from '../responses/store.js';
import { TOOL_SEARCH } from '../tool-plan.js';
import { answerTokens } from '../usage.js';

/** Reads a request into the thread it continues; undefined once an error has been sent. */
function plan(ctx: SimContext, rq: RouteInput): Plan | undefined {
  const parsed = parseJson(rq.raw);
  const read = readResponsesRequest(parsed.ok ? parsed.value : undefined, ctx.responses, ctx.profile.answerFormat);
  if (read.ok) return read.plan;
  const { status, message, param, code } = read.error;
  sendJson(rq.res, status, { error: { message, type: 'invalid_request_error', param, code } });
  return undefined;
}

/**
 * `POST /v1/responses`: the Responses API over the same deliberations. Its path and shapes are
 * not in the seeds; they follow OpenAI's Responses API so its clients (the `openai` package,
 * the Vercel AI SDK's default provider) work unchanged. A response's thread is held for
 * `previous_response_id`, locked to its model. A response ends where its answer segment ends:
 * the job's end, or a tool call the job then waits on (docs/protocol.md §10.1), as a
 * `completed` response with `function_call` items, which the follow-up's outputs answer.
 */
export async function handleResponses(ctx: SimContext, rq: RouteInput): Promise<void> {
  const p = plan(ctx, rq);
  if (p === undefined) return;
  const resolved = resolvePolicy(ctx.policies, p.model);
  if (!resolved.ok)
    return sendJson(rq.res, 404, {
      error: { message: resolved.message, type: 'invalid_request_error', param: 'model', code: 'model_not_found' },
    });
  const { job, from } = answeringJob(ctx, rq, p, resolved.policy);
  const builder = new ResponseBuilder({
    // One job answers every response of a tool round trip, so the job's stamp alone is not unique.
    id: `resp_${job.stamp.id.slice('chatcmpl-'.length)}${randomBytes(4).toString('hex')}`,
    model: p.model,
    createdAt: Math.floor(Date.now() / 1000),
    previousResponseId: p.previous,
    instructions: p.instructions,
    tools: p.tools,
    inputText: p.messages.map((m) => m.content ?? '').join('\n'),
    ...(ctx.profile.usage === 'deliberation' ? { metered: () => answerTokens(job, from, 'deliberation') } : {}),
    echo: p.echo,
    reasoning: p.reasoning,
    maxOutputTokens: p.maxOutputTokens,
  });
  const hold = (step: Step): void => {
    if (builder.status !== 'completed' && builder.status !== 'incomplete') return;
    const response: HeldResponse = {
      id: String(builder.snapshot().id),
      model: p.model,
      thread: [...p.messages, ...builder.outputMessages()],
      threadKey: p.thread,
      effort: p.effort,
      ...(step.over === 'segment' ? { waiting: { jobId: job.id, from: step.cursor } } : {}),
    };
    const items = builder.items();
    ctx.responses.hold(response, items, p.store);
    ctx.timers.after(ctx.historyTtlMs, () => ctx.responses.forget(response, items));
  };
  const headers: Record<string, string> = job.roomless ? {} : { 'x-nsed-session-id': job.id };
  if (!p.stream) {
    await answerEnded(job, from);
    const step = translate(job, builder, from);
    hold(step);
    if (builder.status === 'failed')
      return sendOpenAiError(
        rq.res,
        500,
        `deliberation failed: ${job.failure ?? 'unknown'}`,
        'server_error',
        'deliberation_failed',
        headers,
      );
    return sendJson(rq.res, 200, builder.snapshot(), headers);
  }
  streamResponse(ctx, rq.res, { job, from, builder, headers, hold });
}

/**
 * The job that answers this request, and the log index its answer starts at: a dedup hit; else
 * the job whose tool calls this request's `function_call_output` items answer, fed and followed
 * past the answer that asked (as chat completions do); else a new job over the whole thread,
 * which is also what a follow-up gets once the calls it answers expired or the job is gone.
 */
function answeringJob(ctx: SimContext, rq: RouteInput, p: Plan, policy: SimPolicy): { job: Job; from: number } {
  const tools = toolsOf([...p.tools, ...p.extraTools]);
  const key =
    ctx.dedup === undefined
      ? undefined
      : dedupKey({
          surface: 'responses',
          model: p.model,
          messages: p.messages,
          tools,
          thread: undefined,
          format: p.format,
          ...(p.toolChoice.kind === 'auto' ? {} : { toolChoice: p.toolChoice }),
        });
  const hit = key === undefined ? undefined : ctx.dedup?.hitAt(key);
  if (hit !== undefined) return hit;
  // The results of a `tool_search` alone, with the tools it found offered only now: the job
  // waiting on the search was planned without them and could never call them, so it takes the
  // results and ends unread, and a new job over the whole thread answers instead, and may.
  const found = p.extraTools.length > 0 && toolResultsOf(p.messages).every((r) => r.name === TOOL_SEARCH);
  const fed = feedWaitingJob(ctx, p.messages);
  if (fed !== undefined && !found) {
    if (key !== undefined) ctx.dedup?.claim(key, fed.job, fed.from);
    return fed;
  }
  const job = startCompatJob(ctx, rq.faults, {
    id: ctx.jobs.mintRoomId(),
    model: p.model,
    policy,
    messages: p.messages,
    tools,
    format: p.format,
    thread: p.thread,
    toolChoice: p.toolChoice,
  });
  if (key !== undefined) ctx.dedup?.claim(key, job);
  return { job, from: 0 };
}

/** Answers the waiting calls this request's tool outputs name, all on one job; that job and where to follow it. */
function feedWaitingJob(ctx: SimContext, messages: ChatMessage[]): { job: Job; from: number } | undefined {
  let fed: { job: Job; from: number } | undefined;
  for (const a of toolAnswersOf(messages)) {
    const waiting = ctx.responses.waitingOn(a.id);
    const job = waiting === undefined ? undefined : ctx.jobs.get(waiting.jobId);
    if (waiting === undefined || job === undefined || (fed !== undefined && fed.job !== job)) continue;
    // An expired or already answered call is `not-pending`: the job went on without this result.
    if (job.tools.answer(a.id, a.content) === 'responded') fed = { job, from: waiting.from };
  }
  return fed;
}

/**
 * What feeding the job's log into the builder gave: the events, the index past the last entry
 * read, and whether the answer is over, at the job's end or at a tool call the job waits on.
 */
interface Step {
  events: ResponseEvent[];
  cursor: number;
  over: false | 'job' | 'segment';
}

/** Feeds the job's log from `cursor` into the builder, up to the end of the answer segment. */
function translate(job: Job, builder: ResponseBuilder, cursor: number): Step {
  const events: ResponseEvent[] = [];
  let at = cursor;
  while (at < job.log.length) {
    const entry = job.log[at++];
    if (entry === undefined) break;
    // Entries for streams that follow the whole job (the pending call as an event); the
    // answer shows the call as its own `function_call` item instead.
    if (entry.view === 'continuous') continue;
    if (entry.close === true || entry.data === DONE) {
      events.push(...builder.finish(job.status === 'failed' ? (job.failure ?? 'unknown') : undefined));
      return { events, cursor: at, over: entry.view === 'segment' ? 'segment' : 'job' };
    }
    events.push(...builder.onChunk(JSON.parse(entry.data) as ChatCompletionChunk));
    // max_output_tokens used up: the response ends here, incomplete, whatever the job does next.
    if (builder.exhausted) {
      events.push(...builder.finish());
      return { events, cursor: at, over: 'job' };
    }
  }
  return { events, cursor: at, over: false };
}

interface StreamPlan {
  job: Job;
  from: number;
  builder: ResponseBuilder;
  headers: Record<string, string>;
  hold: (step: Step) => void;
}

function streamResponse(ctx: SimContext, res: ServerResponse, sp: StreamPlan): void {
  const { job, builder } = sp;
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    ...sp.headers,
  });
  const write = (events: ResponseEvent[]): void => {
    for (const e of events) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  };
  let cursor = sp.from;
  let keepalive: NodeJS.Timeout | undefined;
  const arm = (): void => {
    ctx.timers.cancel(keepalive);
    keepalive = ctx.timers.after(ctx.keepaliveMs, () => {
      res.write(': keep-alive\n\n');
      arm();
    });
  };
  const stop = (): void => {
    unwatch();
    ctx.timers.cancel(keepalive);
  };
  const pump = (): void => {
    const step = translate(job, builder, cursor);
    cursor = step.cursor;
    write(step.events);
    if (step.over !== false) {
      stop();
      sp.hold(step);
      res.end();
    } else if (step.events.length > 0) {
      arm();
    }
  };
  const unwatch = job.watch(pump);
  res.on('close', stop);
  write(builder.start());
  arm();
  pump();
}

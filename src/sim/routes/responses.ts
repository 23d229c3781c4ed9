import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { ChatCompletionChunk, ChatMessage } from '../../protocol/wire.js';
import { toolAnswersOf } from '../chat-request.js';
import { startCompatJob } from '../compat-job.js';
import type { RouteInput, SimContext } from '../context.js';
import { dedupKey } from '../dedup.js';
import { isRecord, parseJson, sendJson, sendOpenAiError } from '../http-util.js';
import { DONE, type Job } from '../job.js';
import { type SimPolicy, resolvePolicy } from '../policies.js';
import { answerEnded } from '../respond.js';
import { ResponseBuilder, type ResponseEvent } from '../responses/builder.js';
import { inputToMessages, toolsOf } from '../responses/input.js';
import type { HeldResponse } from '../responses/store.js';

const invalid = (res: ServerResponse, message: string, param: string | null = null): void =>
  sendJson(res, 400, { error: { message, type: 'invalid_request_error', param, code: 'invalid_request' } });

interface Plan {
  model: string;
  messages: ChatMessage[];
  previous: string | null;
  instructions: string | null;
  tools: unknown[];
  stream: boolean;
}

/** Reads a request into the thread it continues; undefined once an error has been sent. */
function plan(ctx: SimContext, rq: RouteInput): Plan | undefined {
  const parsed = parseJson(rq.raw);
  if (!parsed.ok || !isRecord(parsed.value)) return void invalid(rq.res, 'the request body must be a JSON object');
  const body = parsed.value;
  if (typeof body.model !== 'string' || body.model === '') return void invalid(rq.res, "'model' is required", 'model');
  let thread: ChatMessage[] = [];
  let previous: string | null = null;
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    previous = String(body.previous_response_id);
    const held = ctx.responses.get(previous);
    if (held === undefined) {
      sendJson(rq.res, 404, {
        error: {
          message: `Previous response with id '${previous}' not found.`,
          type: 'invalid_request_error',
          param: 'previous_response_id',
          code: 'previous_response_not_found',
        },
      });
      return undefined;
    }
    // The seed: a Responses thread is parameter-locked; a follow-up cannot change the policy.
    if (held.model !== body.model) {
      return void invalid(
        rq.res,
        `this thread is locked to model '${held.model}'; start a new thread (no previous_response_id) to use '${body.model}'`,
        'model',
      );
    }
    thread = held.thread;
  }
  const input = inputToMessages(body.input, (id) => ctx.responses.item(id));
  if (!input.ok) return void invalid(rq.res, input.message, 'input');
  const instructions = typeof body.instructions === 'string' && body.instructions !== '' ? body.instructions : null;
  const messages = [
    ...(instructions === null ? [] : [{ role: 'system' as const, content: instructions }]),
    ...thread,
    ...input.messages,
  ];
  if (!messages.some((m) => m.role === 'user'))
    return void invalid(rq.res, "'input' must hold at least one user message", 'input');
  return {
    model: body.model,
    messages,
    previous,
    instructions,
    tools: Array.isArray(body.tools) ? body.tools : [],
    stream: body.stream === true,
  };
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
  });
  const hold = (step: Step): void => {
    if (builder.status !== 'completed') return;
    const response: HeldResponse = {
      id: String(builder.snapshot().id),
      model: p.model,
      thread: [...p.messages, ...builder.outputMessages()],
      ...(step.over === 'segment' ? { waiting: { jobId: job.id, from: step.cursor } } : {}),
    };
    const items = builder.items();
    ctx.responses.hold(response, items);
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
  const tools = toolsOf(p.tools);
  const key =
    ctx.dedup === undefined
      ? undefined
      : dedupKey({ surface: 'responses', model: p.model, messages: p.messages, tools, thread: undefined });
  const hit = key === undefined ? undefined : ctx.dedup?.hitAt(key);
  if (hit !== undefined) return hit;
  const fed = feedWaitingJob(ctx, p.messages);
  if (fed !== undefined) {
    if (key !== undefined) ctx.dedup?.claim(key, fed.job, fed.from);
    return fed;
  }
  const job = startCompatJob(ctx, rq.faults, {
    id: ctx.jobs.mintRoomId(),
    model: p.model,
    policy,
    messages: p.messages,
    tools,
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

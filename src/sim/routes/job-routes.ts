import { Headers } from '../../protocol/wire.js';
import { chunk } from '../chunks.js';
import type { RouteInput, SimContext } from '../context.js';
import { detailsOf } from '../details.js';
import { skewFigures } from '../meter-skew.js';
import { isRecord, parseJson, sendJson, sendText } from '../http-util.js';
import type { Job } from '../job.js';
import { streamNative } from '../native-stream.js';
import { streamJob } from '../sse-writer.js';

const NOT_RUNNING = 'job not in running state';

function found(ctx: SimContext, rq: RouteInput): Job | undefined {
  const job = ctx.jobs.get(rq.id);
  if (!job) sendJson(rq.res, 404, { error: 'not found' });
  return job;
}

/** `GET /deliberation/{id}/result` (docs/protocol.md §3.4). */
export function handleResult(ctx: SimContext, rq: RouteInput): void {
  const job = found(ctx, rq);
  if (job)
    sendJson(rq.res, 200, {
      job_id: job.id,
      status: job.statusText(),
      result: job.status === 'completed' ? (rq.faults.resultText ?? job.answer) : null,
    });
}

/**
 * `GET /deliberation/{id}/budget` (docs/protocol.md §3.7): time, rounds, and what the job has
 * used so far, live while it runs; tokens and dollars only as the job's metering reports them;
 * 404 for an unknown job and under the `budget=404` fault; only once the job ended under `budget=stall`.
 */
export function handleBudget(ctx: SimContext, rq: RouteInput): void {
  const job = found(ctx, rq);
  if (!job) return;
  // Counted before it is answered: what it says is fixed now, so a test may let the job on.
  ctx.control.budgetRead(job.id);
  if (job.budgetMissing) return sendJson(rq.res, 404, { error: 'not found' });
  const answer = (): void => {
    const rounds = { completed: job.history.length, total: job.info.totalRounds };
    const budget = skewFigures(job.meter.budget(Date.now(), rounds), job.meterSkew);
    sendJson(rq.res, 200, { job_id: job.id, budget });
  };
  // `budget=stall`: the answer waits for the job's end, however long the client waits for it.
  if (job.budgetStall) void job.finished.then(answer);
  else answer();
}

export function handleDetails(ctx: SimContext, rq: RouteInput): void {
  const job = found(ctx, rq);
  if (job) sendJson(rq.res, 200, detailsOf(job));
}

/** `POST /deliberation/{id}/inject` (docs/protocol.md §3.8): lands at the job's next phase boundary. */
export function handleInject(ctx: SimContext, rq: RouteInput): void {
  const job = found(ctx, rq);
  if (!job) return;
  const body = parseJson(rq.raw);
  const message = body.ok && isRecord(body.value) ? body.value.message : undefined;
  if (typeof message !== 'string' || message.trim() === '')
    return sendJson(rq.res, 400, { error: 'message is required' });
  const ack = job.inject(message);
  if (!ack) return sendText(rq.res, 409, NOT_RUNNING);
  sendJson(rq.res, 202, ack);
}

/** `POST /deliberation/{id}/cancel` (docs/protocol.md §3.9): open streams end as the job's ending says. */
export function handleCancel(ctx: SimContext, rq: RouteInput): void {
  const job = found(ctx, rq);
  if (!job) return;
  if (job.status !== 'running') return sendText(rq.res, 409, NOT_RUNNING);
  job.end('failed', 'cancelled', { failure: 'cancelled', last: chunk(job.stamp, {}, 'cancelled') });
  sendJson(rq.res, 200, { cancelled: true });
}

/**
 * `POST /deliberation/{id}/resume` (docs/protocol.md §3.12): the whole history, then the live tail. The seeds
 * describe it for compat streams only; the strict profile serves nothing else.
 */
export function handleResume(ctx: SimContext, rq: RouteInput): void {
  const job = ctx.jobs.get(rq.id);
  if (!job || (job.info.surface === 'native' && !ctx.profile.resumeNative))
    return sendJson(rq.res, 404, { error: 'not found' });
  const headers = { [Headers.nsedSessionId]: job.id };
  streamJob(rq.res, job, {
    faults: rq.faults,
    keepaliveMs: ctx.keepaliveMs,
    timers: ctx.timers,
    headers,
    view: 'continuous',
  });
}

/** `GET /job/{id}/stream`: the native named events, live only. */
export function handleJobStream(ctx: SimContext, rq: RouteInput): void {
  const job = found(ctx, rq);
  if (job) streamNative(rq.res, job, { faults: rq.faults, keepaliveMs: ctx.keepaliveMs, timers: ctx.timers });
}

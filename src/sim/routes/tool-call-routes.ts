import type { RouteInput, SimContext } from '../context.js';
import { isRecord, parseJson, sendJson } from '../http-util.js';
import { quoted } from '../quote.js';

const STATUSES = new Set(['pending', 'responded', 'expired']);

/** `GET /deliberation/{id}/tool-calls[?status=pending]`: the job's calls, optionally by status. */
export function handleToolCalls(ctx: SimContext, rq: RouteInput, query: URLSearchParams): void {
  const job = ctx.jobs.get(rq.id);
  if (!job) return sendJson(rq.res, 404, { error: 'not found' });
  const status = query.get('status')?.toLowerCase();
  if (status !== undefined && !STATUSES.has(status))
    return sendJson(rq.res, 400, { error: 'status must be pending, responded or expired' });
  const calls = job.tools.calls.filter((c) => status === undefined || c.status.toLowerCase() === status);
  sendJson(rq.res, 200, { tool_calls: calls });
}

/**
 * `POST /deliberation/{id}/tool-calls/{call_id}` `{"result": "..."}`: wakes the blocked agent.
 * An answer to a call that already expired or was answered is refused with 409, so a second
 * terminal learns its answer did not land.
 */
export function handleToolResult(ctx: SimContext, rq: RouteInput): void {
  const job = ctx.jobs.get(rq.id);
  if (!job) return sendJson(rq.res, 404, { error: 'not found' });
  const body = parseJson(rq.raw);
  const result = body.ok && isRecord(body.value) ? body.value.result : undefined;
  if (typeof result !== 'string') return sendJson(rq.res, 400, { error: 'result must be a string' });
  const callId = rq.sub;
  switch (job.tools.answer(callId, result)) {
    case 'responded':
      return sendJson(rq.res, 200, { call_id: callId, status: 'responded' });
    case 'unknown':
      return sendJson(rq.res, 404, { error: `no tool call ${quoted(callId)} in this job` });
    case 'not-pending':
      return sendJson(rq.res, 409, {
        error: `tool call ${quoted(callId)} is not pending (${job.tools.get(callId)?.status.toLowerCase() ?? 'gone'})`,
      });
  }
}

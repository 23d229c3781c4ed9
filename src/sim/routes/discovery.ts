import { agentListing } from '../agents.js';
import type { RouteInput, SimContext } from '../context.js';
import { sendJson } from '../http-util.js';
import { quoted } from '../quote.js';
import { modelIds, policyInfo } from '../policies.js';

export function handleDeliberations(ctx: SimContext, rq: RouteInput): void {
  sendJson(rq.res, 200, { jobs: ctx.jobs.list().map((j) => ({ job_id: j.id, status: j.statusText() })) });
}

/** `GET /policies[?tag=]` (docs/protocol.md §3.15). */
export function handlePolicies(ctx: SimContext, rq: RouteInput, query: URLSearchParams): void {
  const tag = query.get('tag');
  const list = ctx.policies.filter((p) => tag === null || p.tags.includes(tag));
  sendJson(
    rq.res,
    200,
    list.map((p) => policyInfo(p, ctx.profile.policyCouncil)),
  );
}

/**
 * When the simulator's models were "created": a fixed instant (2026-01-01T00:00:00Z), so answers
 * repeat exactly, and a real timestamp, so clients that show or sort by it see a date.
 */
export const MODELS_CREATED = 1_767_225_600;

const modelObject = (id: string) => ({ id, object: 'model', created: MODELS_CREATED, owned_by: 'nsed' });

/** `GET /v1/models`: the OpenAI list shape. */
export function handleModels(ctx: SimContext, rq: RouteInput): void {
  sendJson(rq.res, 200, { object: 'list', data: modelIds(ctx.policies).map(modelObject) });
}

/** `GET /v1/models/{id}`: one model object, or OpenAI's 404 for an id the list does not hold. */
export function handleModel(ctx: SimContext, rq: RouteInput): void {
  if (modelIds(ctx.policies).includes(rq.id)) return sendJson(rq.res, 200, modelObject(rq.id));
  sendJson(rq.res, 404, {
    error: {
      message: `The model ${quoted(rq.id)} does not exist`,
      type: 'invalid_request_error',
      param: 'model',
      code: 'model_not_found',
    },
  });
}

/** `GET /agents`: prices unless the profile or a `meter=none` fault says the server reports no cost. */
export function handleAgents(ctx: SimContext, rq: RouteInput): void {
  const prices = ctx.profile.prices && rq.faults.meter !== 'none';
  sendJson(rq.res, 200, agentListing({ prices, singleFamily: ctx.singleFamily }));
}

export function handleHealth(_ctx: SimContext, rq: RouteInput): void {
  sendJson(rq.res, 200, { status: 'healthy', nats_connection: 'Connected', timestamp: new Date().toISOString() });
}

import { agentListing } from '../agents.js';
import type { RouteInput, SimContext } from '../context.js';
import { sendJson } from '../http-util.js';
import { modelIds, policyInfo } from '../policies.js';

export function handleDeliberations(ctx: SimContext, rq: RouteInput): void {
  sendJson(rq.res, 200, { jobs: ctx.jobs.list().map((j) => ({ job_id: j.id, status: j.statusText() })) });
}

/** `GET /policies[?tag=]` (docs/protocol.md §3.15). */
export function handlePolicies(ctx: SimContext, rq: RouteInput, query: URLSearchParams): void {
  const tag = query.get('tag');
  const list = ctx.policies.filter((p) => tag === null || p.tags.includes(tag));
  sendJson(rq.res, 200, list.map(policyInfo));
}

/** `GET /v1/models`: the OpenAI list shape. */
export function handleModels(ctx: SimContext, rq: RouteInput): void {
  sendJson(rq.res, 200, {
    object: 'list',
    data: modelIds(ctx.policies).map((id) => ({ id, object: 'model', created: 0, owned_by: 'nsed' })),
  });
}

export function handleAgents(_ctx: SimContext, rq: RouteInput): void {
  sendJson(rq.res, 200, agentListing());
}

export function handleHealth(_ctx: SimContext, rq: RouteInput): void {
  sendJson(rq.res, 200, { status: 'healthy', nats_connection: 'Connected', timestamp: new Date().toISOString() });
}

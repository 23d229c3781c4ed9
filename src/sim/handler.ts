import type { IncomingMessage, ServerResponse } from 'node:http';
import { NsedError } from '../errors.js';
import { Headers } from '../protocol/wire.js';
import { authorized } from './auth.js';
import type { RouteInput, SimContext } from './context.js';
import type { FaultSpec } from './faults.js';
import { BodyTooLarge, parseJson, readBody, sendJson, sendOpenAiError } from './http-util.js';
import { type SimRequestRecord, recordHeaders } from './request-log.js';
import { type RouteMatch, type RouteName, matchRoute } from './router.js';
import { handleChat } from './routes/chat.js';
import { CONTROL_PREFIX, handleControl } from './routes/control.js';
import {
  handleAgents,
  handleDeliberations,
  handleHealth,
  handleModel,
  handleModels,
  handlePolicies,
} from './routes/discovery.js';
import {
  handleBudget,
  handleCancel,
  handleDetails,
  handleInject,
  handleJobStream,
  handleResult,
  handleResume,
} from './routes/job-routes.js';
import { handleResponses } from './routes/responses.js';
import { handleSubmit } from './routes/submit.js';
import { handleToolCalls, handleToolResult } from './routes/tool-call-routes.js';

export interface HandlerDeps {
  ctx: SimContext;
  token: string | undefined;
  requests: SimRequestRecord[];
  log: ((line: string) => void) | undefined;
  withoutRoutes: ReadonlySet<RouteName>;
  /** Serve the test control under `/_sim/` (only when the simulator was started to hold jobs). */
  controlRoutes: boolean;
}

/**
 * Errors on the compat surface are OpenAI-shaped; the native API, and a 401 anywhere, answer
 * `{"error": "..."}`.
 */
function sendError(
  res: ServerResponse,
  match: RouteMatch | undefined,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if ((match?.name === 'chat' || match?.name === 'responses') && status !== 401) {
    const type = status === 429 ? 'rate_limit_error' : status >= 500 ? 'server_error' : 'invalid_request_error';
    sendOpenAiError(res, status, message, type, 'sim_fault', headers);
  } else {
    sendJson(res, status, { error: message }, headers);
  }
}

function statusFault(res: ServerResponse, match: RouteMatch, faults: FaultSpec): boolean {
  if (faults.status === undefined) return false;
  const headers: Record<string, string> = faults.retryAfter === undefined ? {} : { 'retry-after': faults.retryAfter };
  sendError(res, match, faults.status, `simulated fault: status ${faults.status}`, headers);
  return true;
}

async function dispatch(ctx: SimContext, match: RouteMatch, rq: RouteInput, query: URLSearchParams): Promise<void> {
  switch (match.name) {
    case 'chat':
      return handleChat(ctx, rq);
    case 'responses':
      return handleResponses(ctx, rq);
    case 'submit':
      return handleSubmit(ctx, rq);
    case 'result':
      return handleResult(ctx, rq);
    case 'details':
      return handleDetails(ctx, rq);
    case 'budget':
      return handleBudget(ctx, rq);
    case 'inject':
      return handleInject(ctx, rq);
    case 'cancel':
      return handleCancel(ctx, rq);
    case 'resume':
      return handleResume(ctx, rq);
    case 'job-stream':
      return handleJobStream(ctx, rq);
    case 'tool-calls':
      return handleToolCalls(ctx, rq, query);
    case 'tool-result':
      return handleToolResult(ctx, rq);
    case 'deliberations':
      return handleDeliberations(ctx, rq);
    case 'policies':
      return handlePolicies(ctx, rq, query);
    case 'models':
      return handleModels(ctx, rq);
    case 'model':
      return handleModel(ctx, rq);
    case 'agents':
      return handleAgents(ctx, rq);
    case 'health':
      return handleHealth(ctx, rq);
  }
}

/** One request end to end: record, log, read, authenticate, route, apply faults, answer. */
export async function handleRequest(deps: HandlerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now();
  const method = req.method ?? 'GET';
  // A path is read as a path: `//` or `//x` would otherwise be read as a host (a protocol-relative URL).
  const raw = req.url ?? '/';
  let url: URL;
  try {
    url = raw.startsWith('/') ? new URL(`http://sim.invalid${raw}`) : new URL(raw);
  } catch {
    return sendJson(res, 400, { error: 'the request target is not a valid path' });
  }
  // Test control is neither recorded nor authenticated: tests count the orchestrator requests.
  if (deps.controlRoutes && url.pathname.startsWith(CONTROL_PREFIX))
    return handleControl(deps.ctx.control, req, res, url);
  const record: SimRequestRecord = {
    method,
    path: url.pathname,
    headers: recordHeaders(req.headers),
    body: undefined,
    at: Date.now(),
  };
  deps.requests.push(record);
  res.on('close', () =>
    deps.log?.(`${method} ${url.pathname} ${res.statusCode} ${Math.round(performance.now() - started)}ms`),
  );
  const routed = matchRoute(method, url.pathname);
  // An older orchestrator without `/v1/models` has no `/v1/models/{id}` either.
  const match =
    routed !== undefined && deps.withoutRoutes.has(routed.name === 'model' ? 'models' : routed.name)
      ? undefined
      : routed;
  let body: string;
  try {
    body = await readBody(req);
  } catch (err) {
    if (err instanceof BodyTooLarge) {
      res.setHeader('connection', 'close');
      sendError(res, match, 413, err.message);
    }
    return;
  }
  if (body !== '') {
    const parsed = parseJson(body);
    record.body = parsed.ok ? parsed.value : body;
  }
  if (match?.name !== 'health' && !authorized(deps.token, req.headers.authorization))
    return sendError(res, match, 401, 'unauthorized');
  if (!match) return sendJson(res, 404, { error: 'not found' });
  let faults: FaultSpec = {};
  if (match.name !== 'health') {
    const header = req.headers[Headers.simFault];
    try {
      faults = deps.ctx.faults.take(match.fault, typeof header === 'string' ? header : undefined);
    } catch (err) {
      return sendError(
        res,
        match,
        400,
        `bad ${Headers.simFault}: ${err instanceof NsedError ? err.message : String(err)}`,
      );
    }
    if (statusFault(res, match, faults)) return;
  }
  await dispatch(deps.ctx, match, { req, res, raw: body, faults, id: match.id, sub: match.sub }, url.searchParams);
}

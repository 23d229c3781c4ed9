import type { FaultRoute } from './faults.js';

export type RouteName =
  | 'chat'
  | 'responses'
  | 'models'
  | 'model'
  | 'submit'
  | 'deliberations'
  | 'result'
  | 'details'
  | 'budget'
  | 'inject'
  | 'cancel'
  | 'resume'
  | 'job-stream'
  | 'tool-calls'
  | 'tool-result'
  | 'policies'
  | 'agents'
  | 'health';

export interface RouteMatch {
  name: RouteName;
  /** The decoded `{id}` of `/deliberation/{id}/…`; '' elsewhere. */
  id: string;
  /** The decoded `{call_id}` of `/deliberation/{id}/tool-calls/{call_id}`; '' elsewhere. */
  sub: string;
  fault: FaultRoute;
}

const FIXED: Record<string, RouteName> = {
  'POST /v1/chat/completions': 'chat',
  'POST /v1/responses': 'responses',
  'GET /v1/models': 'models',
  'POST /deliberation': 'submit',
  'GET /deliberations': 'deliberations',
  'GET /policies': 'policies',
  'GET /agents': 'agents',
  'GET /health': 'health',
};

const JOB: Record<string, RouteName> = {
  'GET result': 'result',
  'GET details': 'details',
  'GET budget': 'budget',
  'POST inject': 'inject',
  'POST cancel': 'cancel',
  'POST resume': 'resume',
  'GET tool-calls': 'tool-calls',
};

const decode = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
};

// The native job stream shares the resume scope: both follow a job that already exists.
const faultRouteOf = (name: RouteName): FaultRoute =>
  name === 'chat' || name === 'responses'
    ? 'chat'
    : name === 'submit'
      ? 'submit'
      : name === 'resume' || name === 'job-stream'
        ? 'resume'
        : 'other';

/** Maps a method and path to a route; undefined for anything the orchestrator does not serve. */
export function matchRoute(method: string, pathname: string): RouteMatch | undefined {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  const fixed = FIXED[`${method} ${path}`];
  if (fixed) return { name: fixed, id: '', sub: '', fault: faultRouteOf(fixed) };
  const model = /^\/v1\/models\/(.+)$/.exec(path);
  if (model && method === 'GET') {
    const id = decode(model[1] ?? '');
    return id === undefined ? undefined : { name: 'model', id, sub: '', fault: 'other' };
  }
  const answer = /^\/deliberation\/([^/]+)\/tool-calls\/([^/]+)$/.exec(path);
  if (answer && method === 'POST') {
    const id = decode(answer[1] ?? '');
    const sub = decode(answer[2] ?? '');
    return id === undefined || sub === undefined ? undefined : { name: 'tool-result', id, sub, fault: 'other' };
  }
  const native = /^\/job\/([^/]+)\/stream$/.exec(path);
  const m = native ? [native[0], native[1], 'stream'] : /^\/deliberation\/([^/]+)\/([a-z-]+)$/.exec(path);
  if (!m || m[1] === undefined) return undefined;
  const name = native ? (method === 'GET' ? 'job-stream' : undefined) : JOB[`${method} ${m[2] ?? ''}`];
  if (!name) return undefined;
  const id = decode(m[1]);
  return id === undefined ? undefined : { name, id, sub: '', fault: faultRouteOf(name) };
}

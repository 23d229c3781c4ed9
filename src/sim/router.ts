import type { FaultRoute } from './faults.js';

export type RouteName = 'chat' | 'responses' | 'models' | 'submit' | 'deliberations' | 'result' | 'details' | 'inject' | 'cancel' | 'resume' | 'job-stream' | 'policies' | 'agents' | 'health';

export interface RouteMatch {
  name: RouteName;
  /** The decoded `{id}` of `/deliberation/{id}/…`; '' elsewhere. */
  id: string;
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
  'POST inject': 'inject',
  'POST cancel': 'cancel',
  'POST resume': 'resume',
};

// The native job stream shares the resume scope: both follow a job that already exists.
const faultRouteOf = (name: RouteName): FaultRoute =>
  name === 'chat' || name === 'responses' ? 'chat' : name === 'submit' ? 'submit' : name === 'resume' || name === 'job-stream' ? 'resume' : 'other';

/** Maps a method and path to a route; undefined for anything the orchestrator does not serve. */
export function matchRoute(method: string, pathname: string): RouteMatch | undefined {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  const fixed = FIXED[`${method} ${path}`];
  if (fixed) return { name: fixed, id: '', fault: faultRouteOf(fixed) };
  const native = /^\/job\/([^/]+)\/stream$/.exec(path);
  const m = native ? [native[0], native[1], 'stream'] : /^\/deliberation\/([^/]+)\/([a-z]+)$/.exec(path);
  if (!m || m[1] === undefined) return undefined;
  const name = native ? (method === 'GET' ? 'job-stream' : undefined) : JOB[`${method} ${m[2] ?? ''}`];
  if (!name) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(m[1]);
  } catch {
    return undefined;
  }
  return { name, id, fault: faultRouteOf(name) };
}

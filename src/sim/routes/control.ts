import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HeldJob, SimControl } from '../hold.js';
import { isRecord, parseJson, readBody, sendJson } from '../http-util.js';

/** The prefix of the test control routes; never an orchestrator path. */
export const CONTROL_PREFIX = '/_sim/';

/**
 * The simulator's test control over HTTP, for tests that run `nsed sim --hold` as a process:
 *   GET  /_sim/jobs                          every job: {hold, running, peak, started, jobs: [{jobId, held, phases, parked, ended}]}
 *   GET  /_sim/stats                         jobs running now, the peak since start, jobs started: {running, peak, started}
 *   POST /_sim/hold            {"hold": b}   hold (or not) the deliberations started from now on
 *   POST /_sim/release                       release every job, and stop holding
 *   POST /_sim/jobs/{id}/release {"phases": n}  let n more phases run (no body: run to the end)
 *   GET  /_sim/next-job                      waits for the next job not yet handed out: {jobId}
 *   GET  /_sim/jobs/{id}/wait?for=parked|ended|injected|phases|attached&count=n   waits, then answers that job
 * The waits hold the request open; the caller bounds them.
 */
export async function handleControl(
  control: SimControl,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const method = req.method ?? 'GET';
  const path = url.pathname.slice(CONTROL_PREFIX.length).replace(/\/+$/, '');
  const raw = await readBody(req);
  const body = parseJson(raw === '' ? '{}' : raw);
  const fields = body.ok && isRecord(body.value) ? body.value : undefined;
  if (fields === undefined) return sendJson(res, 400, { error: 'the body is not a JSON object' });

  if (method === 'GET' && path === 'jobs')
    return sendJson(res, 200, { hold: control.hold, ...control.stats(), jobs: control.jobs() });
  if (method === 'GET' && path === 'stats') return sendJson(res, 200, control.stats());
  if (method === 'POST' && path === 'hold') {
    if (typeof fields['hold'] !== 'boolean') return sendJson(res, 400, { error: 'hold must be true or false' });
    control.hold = fields['hold'];
    return sendJson(res, 200, { hold: control.hold });
  }
  if (method === 'POST' && path === 'release') {
    control.releaseAll();
    return sendJson(res, 200, { hold: control.hold });
  }
  if (method === 'GET' && path === 'next-job') return sendJson(res, 200, { jobId: await control.nextJob() });

  const m = /^jobs\/([^/]+)\/(release|wait)$/.exec(path);
  const id = m?.[1] === undefined ? undefined : decodeURIComponent(m[1]);
  if (m === null || id === undefined) return sendJson(res, 404, { error: 'no such control route' });
  if (control.job(id) === undefined) return sendJson(res, 404, { error: `no job ${id}` });
  if (method === 'POST' && m[2] === 'release') {
    const phases = fields['phases'];
    if (phases !== undefined && (typeof phases !== 'number' || !Number.isInteger(phases) || phases < 1)) {
      return sendJson(res, 400, { error: 'phases must be a positive integer' });
    }
    control.release(id, phases);
    return sendJson(res, 200, control.job(id));
  }
  if (method === 'GET' && m[2] === 'wait') {
    const waited = await waitFor(control, id, url.searchParams);
    return typeof waited === 'string' ? sendJson(res, 400, { error: waited }) : sendJson(res, 200, waited);
  }
  return sendJson(res, 405, { error: `${method} not allowed here` });
}

function waitFor(control: SimControl, id: string, query: URLSearchParams): Promise<HeldJob> | string {
  const what = query.get('for') ?? 'parked';
  if (what === 'parked') return control.parked(id);
  if (what === 'ended') return control.ended(id);
  const count = Number(query.get('count') ?? '1');
  if (what === 'injected' && Number.isInteger(count) && count > 0) return control.injected(id, count);
  if (what === 'phases' && Number.isInteger(count) && count > 0) return control.phases(id, count);
  if (what === 'attached' && Number.isInteger(count) && count > 0) return control.attached(id, count);
  return 'for must be parked, ended, or injected, phases or attached with a positive count';
}

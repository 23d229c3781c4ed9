import { NsedError, notNsedOrchestrator } from '../errors.js';
import { sanitizeServerText } from './redact.js';

/** The only table mapping HTTP statuses to nsed errors (docs/protocol.md §2, docs/reliability.md #45-#49). */

export type HeaderBag = Record<string, string | string[] | undefined>;

export interface StatusContext {
  status: number;
  headers: HeaderBag;
  /** The response body, already bounded (64 KiB) and decoded. */
  body: string;
  method: string;
  /** The request path as sent, for messages; never carries credentials. */
  path: string;
  /** The URL the request went to, to resolve a relative Location. */
  url: URL;
  token: string | undefined;
  /** What the request was about, e.g. "job 'abc'", for not-found messages. */
  subject?: string;
  /** What a 409 means for this request, e.g. "job 'abc' is not running". */
  conflict?: string;
  /** The `model` of a chat completion, for "unknown policy" messages. */
  model?: string;
  now: () => number;
}

/** Retry-After values outside [0, 60] s are not honoured (openai-node, vercel/ai; docs/reliability.md #45). */
export const RETRY_AFTER_CAP_S = 60;

export function headerValue(headers: HeaderBag, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * How long the server asked the client to wait, in seconds: `retry-after-ms` first, then
 * `Retry-After` as seconds or as an HTTP date. `honoured` is set only when the value lies in
 * [0, RETRY_AFTER_CAP_S]; `asked` is whatever non-negative value the server sent.
 */
export function parseRetryAfter(headers: HeaderBag, nowMs: number): { asked?: number; honoured?: number } {
  let seconds: number | undefined;
  const ms = headerValue(headers, 'retry-after-ms')?.trim();
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) seconds = Number(ms) / 1000;
  const ra = headerValue(headers, 'retry-after')?.trim();
  if (seconds === undefined && ra !== undefined && ra !== '') {
    if (/^-?\d+(\.\d+)?$/.test(ra)) seconds = Number(ra);
    else {
      const at = Date.parse(ra);
      if (Number.isFinite(at)) seconds = Math.ceil((at - nowMs) / 1000);
    }
  }
  if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return {};
  return seconds <= RETRY_AFTER_CAP_S ? { asked: seconds, honoured: seconds } : { asked: seconds };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The human part of an error body: `{"error":"x"}`, `{"error":{"message":"x"}}`, `{"message":"x"}` or plain text. */
export function bodyMessage(body: string): string {
  const json = parseJson(body);
  if (isRecord(json)) {
    const e = json['error'];
    if (typeof e === 'string') return e;
    if (isRecord(e) && typeof e['message'] === 'string') return e['message'];
    if (typeof json['message'] === 'string') return json['message'];
    if (typeof json['detail'] === 'string') return json['detail'];
  }
  return body;
}

/** `error.code` or `error.type` of an OpenAI-style error body. */
export function bodyErrorCode(body: string): string | undefined {
  const json = parseJson(body);
  if (!isRecord(json)) return undefined;
  const e = json['error'];
  if (isRecord(e)) {
    if (typeof e['code'] === 'string') return e['code'];
    if (typeof e['type'] === 'string') return e['type'];
  }
  return typeof json['code'] === 'string' ? json['code'] : undefined;
}

function detail(ctx: StatusContext): string {
  const text = sanitizeServerText(bodyMessage(ctx.body), ctx.token);
  return text === '' ? '' : `: ${text}`;
}

function redirectTarget(ctx: StatusContext): string | undefined {
  const location = headerValue(ctx.headers, 'location');
  if (location === undefined || location.trim() === '') return undefined;
  try {
    const to = new URL(location.trim(), ctx.url);
    return sanitizeServerText(`${to.protocol}//${to.host}${to.pathname}`, ctx.token);
  } catch {
    return undefined;
  }
}

/** Maps a non-success response to the NsedError that carries its exit code. */
export function errorForStatus(ctx: StatusContext): NsedError {
  const { status } = ctx;
  const base = { status };
  const what = `${ctx.method} ${ctx.path}`;

  if (ctx.model !== undefined && bodyErrorCode(ctx.body) === 'model_not_found') {
    return new NsedError('not_found', `unknown policy '${sanitizeServerText(ctx.model, ctx.token, 80)}' (${status})`, {
      ...base,
      hint: "list the orchestrator's policies with 'nsed policies'; pass a tag (-p deep), 'nsed:<tag>' or a policy id",
    });
  }
  if (status >= 300 && status < 400) {
    const target = redirectTarget(ctx);
    const message =
      target === undefined
        ? `the orchestrator answered ${what} with a redirect (${status}) and no usable Location`
        : `the orchestrator redirected to ${target} (${status}); point --url at the final address`;
    return new NsedError('server', message, {
      ...base,
      hint: 'nsed never follows redirects: they would drop the request body or send the token elsewhere',
    });
  }
  if (status === 401 || status === 403) {
    const sent = ctx.token !== undefined && ctx.token !== '';
    const message = sent
      ? `authentication failed (${status}): check NSED_TOKEN or --token-file`
      : `authentication failed (${status}): no token was sent; set NSED_TOKEN or use --token-file`;
    const said = detail(ctx);
    return new NsedError('auth', said === '' ? message : `${message} (the orchestrator said${said})`, base);
  }
  // Every NSED orchestrator accepts a council here; a server without the route is some other
  // OpenAI-compatible server, which can answer `-m NAME` but cannot run a council.
  if (status === 404 && ctx.method === 'POST' && ctx.path === '/deliberation') {
    return notNsedOrchestrator(
      sanitizeServerText(`${ctx.url.protocol}//${ctx.url.host}`, ctx.token, 200),
      `it has no ${what} route (404)`,
    );
  }
  if (status === 404 || status === 410) {
    const subject = ctx.subject ?? what;
    const gone = status === 410 ? 'gone' : 'not found';
    return new NsedError('not_found', `${subject}: ${gone} on the orchestrator (${status})${detail(ctx)}`, {
      ...base,
      ...(ctx.subject === undefined
        ? { hint: 'check --url: the compat API is under /v1 of the orchestrator base URL' }
        : {}),
    });
  }
  if (status === 407) {
    return new NsedError(
      'network',
      'the proxy requires authentication (407): check the credentials in HTTPS_PROXY / HTTP_PROXY',
      base,
    );
  }
  if (status === 409) {
    const conflict = ctx.conflict ?? `the orchestrator refused ${what} as a conflict`;
    return new NsedError('conflict', `${conflict} (409)${detail(ctx)}`, base);
  }
  if (status === 400 || status === 413 || status === 422) {
    const why = status === 413 ? 'the request is too large' : 'the orchestrator rejected the request';
    return new NsedError('usage', `${why} (${status})${detail(ctx)}`, base);
  }
  if (status === 429 || status >= 500) {
    const wait = parseRetryAfter(ctx.headers, ctx.now());
    const asked = wait.asked === undefined ? '' : `; it asked to wait ${wait.asked} s`;
    const head =
      status === 429 ? 'the orchestrator is rate limiting requests (429)' : `the orchestrator failed (${status})`;
    // "Busy, come back later", with no job id: the request started nothing.
    const jobId = headerValue(ctx.headers, 'x-nsed-session-id');
    const busy = (status === 429 || status === 503) && (jobId === undefined || jobId === '');
    return new NsedError('server', `${head}${detail(ctx)}${asked}`, {
      ...base,
      ...(wait.honoured === undefined ? {} : { retryAfterS: wait.honoured }),
      ...(busy ? { nothingStarted: true } : {}),
    });
  }
  return new NsedError(
    'server',
    `the orchestrator answered ${what} with an unexpected status ${status}${detail(ctx)}`,
    base,
  );
}

/**
 * The HTTP status an error object sent inside a 200 stream stands for, so it exits as the same
 * error would as a status (docs/reliability.md #19): a numeric `status` (or `code`), else the
 * OpenAI-style `code` or `type`. Undefined when it names none (a server failure, exit 5).
 */
const STATUS_OF_ERROR_CODE: Readonly<Record<string, number>> = {
  invalid_api_key: 401,
  authentication_error: 401,
  unauthorized: 401,
  permission_error: 403,
  permission_denied: 403,
  forbidden: 403,
  model_not_found: 404,
  not_found: 404,
  not_found_error: 404,
  invalid_request_error: 400,
  bad_request: 400,
  context_length_exceeded: 400,
  rate_limit_exceeded: 429,
  rate_limit_error: 429,
  insufficient_quota: 429,
};

export function statusOfErrorObject(v: unknown): number | undefined {
  if (!isRecord(v)) return undefined;
  const e = isRecord(v['error']) ? v['error'] : v;
  for (const key of ['status', 'code']) {
    const n = e[key];
    if (typeof n === 'number' && Number.isInteger(n) && n >= 400 && n < 600) return n;
  }
  for (const key of ['code', 'type']) {
    const c = e[key];
    if (typeof c === 'string' && Object.hasOwn(STATUS_OF_ERROR_CODE, c)) return STATUS_OF_ERROR_CODE[c];
  }
  return undefined;
}

/** An error reported inside a stream, as the status table would map the status it stands for. */
export function errorInStream(v: unknown, said: string): NsedError {
  const status = statusOfErrorObject(v);
  const message = `the orchestrator reported: ${said}`;
  if (status === 401 || status === 403)
    return new NsedError('auth', `authentication failed (${status}): ${said}`, {
      hint: 'check NSED_TOKEN or --token-file',
    });
  if (status === 404 || status === 410) return new NsedError('not_found', message);
  if (status === 400 || status === 413 || status === 422) return new NsedError('usage', message);
  return new NsedError('server', message);
}

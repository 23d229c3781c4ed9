import { parseDetails, type DetailsHistory } from './parse-details.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  AgentInfo,
  ChatCompletion,
  ChatCompletionRequest,
  DeliberationRequest,
  HealthInfo,
  InjectAck,
  JobResult,
  ModelInfo,
  PendingToolCall,
  PolicyInfo,
} from '../protocol/wire.js';
import { Headers } from '../protocol/wire.js';
import { NsedError, usageError } from '../errors.js';
import { createDispatcher, proxyDisplay, type Env } from './dispatcher.js';
import type { EventStream } from './event-stream.js';
import { headerValue } from './http-errors.js';
import { openStream, statusError, type Describe } from './open-stream.js';
import { parseToolCalls } from './parse-tool-calls.js';
import {
  parseAgents,
  parseChatCompletion,
  parseHealth,
  parseInjectAck,
  parseJobList,
  parseJobResult,
  parseJsonBody,
  parseModels,
  parsePolicies,
  parseSubmit,
  unreadable,
} from './parse-responses.js';
import { showId } from './redact.js';
import { DEFAULT_MAX_EVENT_BYTES } from './sse.js';
import { failureAfterSend, readText, send, type SendSpec, type StartGate, type Transport } from './transport.js';

export type { EventStream } from './event-stream.js';
export type { StartGate } from './transport.js';

export interface ClientConfig {
  /** Orchestrator base, trailing '/' stripped; the compat API is under /v1. */
  baseUrl: string;
  /** Bearer token, sent as Authorization on every call. */
  token?: string;
  connectTimeoutMs?: number;
  /** Time to response headers: default the idle timeout (at most 30 s for quick requests); none for non-streaming chat. */
  headersTimeoutMs?: number;
  /** Longest silence on a stream body, from the last byte received (comments count). */
  idleTimeoutMs: number;
  /** Absolute epoch ms for the whole turn; every request of this client stops there. */
  deadline?: number;
  /** Proxy variables (and NSED_DEBUG). */
  env?: Env;
  /** Cap on one SSE event or unterminated line (docs/reliability.md #14). */
  maxEventBytes?: number;
  now?: () => number;
  /** Waits a refused start out (Retry-After) and the connect back-off; the CLI passes its clock's, so a test need not wait them. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** One line per request (method and URL, nothing secret); set for NSED_DEBUG=1 or --verbose. */
  debug?: (line: string) => void;
  /** The back-off this client's starts share with other turns' (`nsed batch`); none: each start waits its own. */
  startGate?: StartGate;
}

/** Told before a refused start is sent again: the attempt about to be made and why. */
export type OnStartRetry = (attempt: number, reason: string) => void;

export interface NsedClient {
  chatStream(
    body: ChatCompletionRequest,
    opts?: { threadKey?: string; signal?: AbortSignal; headers?: Record<string, string>; onRetry?: OnStartRetry },
  ): Promise<EventStream>;
  chat(
    body: ChatCompletionRequest,
    /** `onJob`: told the job id from the headers, before the body (which may take minutes) is read. */
    opts?: { threadKey?: string; signal?: AbortSignal; onJob?: (jobId: string) => Promise<void> },
  ): Promise<{ completion: ChatCompletion; jobId: string | undefined }>;
  submit(
    body: DeliberationRequest,
    opts?: { signal?: AbortSignal; onRetry?: OnStartRetry },
  ): Promise<{ job_id: string }>;
  resume(jobId: string, opts?: { signal?: AbortSignal }): Promise<EventStream>;
  /** `GET /job/{id}/stream`: the native named events, live only (no replay). */
  jobStream(jobId: string, opts?: { signal?: AbortSignal }): Promise<EventStream>;
  result(jobId: string, opts?: { signal?: AbortSignal }): Promise<JobResult>;
  /** `GET /deliberation/{id}/details`: an ended job's round history (protocol section 3.5), as stream events would give it. */
  details(jobId: string, opts?: { signal?: AbortSignal }): Promise<DetailsHistory>;
  /** The caller's own jobs (protocol section 3.14). */
  deliberations(opts?: { signal?: AbortSignal }): Promise<Array<{ job_id: string; status: string }>>;
  inject(jobId: string, message: string, opts?: { signal?: AbortSignal }): Promise<InjectAck>;
  /** `pastDeadline`: sent once --timeout has fired (--on-exit cancel), bounded by `signal` instead. */
  cancel(jobId: string, opts?: { signal?: AbortSignal; pastDeadline?: boolean }): Promise<void>;
  /** `POST /deliberation/{id}/tool-calls/{call_id}`: 404 unknown call, 409 no longer pending. */
  answerToolCall(jobId: string, callId: string, result: string, opts?: { signal?: AbortSignal }): Promise<void>;
  toolCalls(jobId: string, opts?: { status?: 'pending'; signal?: AbortSignal }): Promise<PendingToolCall[]>;
  policies(opts?: { signal?: AbortSignal; tag?: string }): Promise<PolicyInfo[]>;
  agents(opts?: { signal?: AbortSignal }): Promise<AgentInfo[]>;
  models(opts?: { signal?: AbortSignal }): Promise<ModelInfo[]>;
  /** `GET /health`, the one route that needs no token. */
  health(opts?: { signal?: AbortSignal }): Promise<HealthInfo>;
  close(): Promise<void>;
}

const QUICK_HEADERS_MS = 30_000;
/** Sends of a start the orchestrator turned away as busy before nsed gives up (docs/reliability.md #45). */
const START_SENDS = 4;
const JSON_BODY_LIMIT = 16 * 1024 * 1024;

/** Ids travel as one path segment: all but [A-Za-z0-9_-] is percent-encoded, dots too (docs/reliability.md #77). */
export function encodeSegment(id: string): string {
  if (id === '') throw usageError('an empty job id cannot be sent to the orchestrator');
  return Array.from(new TextEncoder().encode(id), (b) =>
    /[A-Za-z0-9_-]/.test(String.fromCharCode(b))
      ? String.fromCharCode(b)
      : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
  ).join('');
}

function parseBase(raw: string): { base: URL; basePath: string } {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw usageError(`not a URL: '${showId(raw)}'`, 'pass the orchestrator base, e.g. --url http://localhost:8080');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usageError(`unsupported URL scheme '${url.protocol}' (use http or https)`);
  if (url.username !== '' || url.password !== '')
    throw usageError('the orchestrator URL must not carry credentials', 'put the token in NSED_TOKEN or --token-file');
  url.search = '';
  url.hash = '';
  return { base: url, basePath: url.pathname.replace(/\/+$/, '') };
}

export function createClient(cfg: ClientConfig): NsedClient {
  const { base, basePath } = parseBase(cfg.baseUrl);
  const env = cfg.env ?? {};
  const token = cfg.token === undefined || cfg.token === '' ? undefined : cfg.token;
  // A newline or NUL in a token file would be a header-injection attempt or a broken file.
  if (token !== undefined && /[^\x20-\x7e]/.test(token)) {
    throw usageError(
      'the bearer token contains spaces, control or non-ASCII characters',
      'check NSED_TOKEN or the token file',
    );
  }
  const connectTimeoutMs = cfg.connectTimeoutMs ?? 10_000;
  const { dispatcher, proxy } = createDispatcher(base, env, connectTimeoutMs);
  const log = cfg.debug;
  const wait =
    cfg.sleep ??
    ((ms: number, signal?: AbortSignal) => sleep(ms, undefined, signal === undefined ? undefined : { signal }));
  if (proxy !== undefined) log?.(`proxy variables set: ${proxyDisplay(proxy)} (NO_PROXY applies)`);
  const t: Transport = {
    dispatcher,
    base,
    basePath,
    token,
    connectTimeoutMs,
    idleTimeoutMs: cfg.idleTimeoutMs,
    deadline: cfg.deadline,
    now: cfg.now ?? Date.now,
    sleep: wait,
    log,
    startGate: cfg.startGate,
  };
  const maxEventBytes = cfg.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  // Silence before the headers is silence too: --idle-timeout bounds it (a quick request
  // waits no longer than its own, shorter, limit).
  const quickHeaders = cfg.headersTimeoutMs ?? Math.min(QUICK_HEADERS_MS, cfg.idleTimeoutMs);
  const streamHeaders = cfg.headersTimeoutMs ?? cfg.idleTimeoutMs;

  /** A quick request whose 2xx answer is JSON (or, with `parse` undefined, ignored). */
  async function call<T>(
    spec: Omit<SendSpec, 'accept' | 'headersTimeoutMs' | 'bodyTimeoutMs'>,
    describe: Describe,
    parse?: (v: unknown) => T | undefined,
  ): Promise<T | undefined> {
    const sent = await send(t, {
      ...spec,
      accept: 'application/json',
      headersTimeoutMs: quickHeaders,
      bodyTimeoutMs: quickHeaders,
    });
    if (sent.res.statusCode < 200 || sent.res.statusCode >= 300)
      throw await statusError(t, sent, spec.method, describe);
    const what = `${spec.method} ${sent.path}`;
    try {
      const { text, truncated } = await readText(sent.res.body, JSON_BODY_LIMIT);
      if (parse === undefined) return undefined;
      if (truncated)
        throw new NsedError(
          'server',
          `the orchestrator's answer to ${what} is larger than ${JSON_BODY_LIMIT / 1024 / 1024} MiB`,
        );
      const value = parse(parseJsonBody(what, text, token));
      if (value === undefined) throw unreadable(what, text, token);
      return value;
    } catch (err) {
      throw failureAfterSend(err, t, sent.guard, { method: spec.method, path: sent.path });
    } finally {
      sent.guard.dispose();
    }
  }

  async function json<T>(
    spec: Omit<SendSpec, 'accept' | 'headersTimeoutMs' | 'bodyTimeoutMs'>,
    describe: Describe,
    parse: (v: unknown) => T | undefined,
  ): Promise<T> {
    const value = await call(spec, describe, parse);
    if (value === undefined) throw new NsedError('bug', `no value parsed from ${spec.method} ${spec.path}`);
    return value;
  }

  const job = (id: string): string => `/deliberation/${encodeSegment(id)}`;
  const jobDescribe = (id: string, conflict: string): Describe => ({
    subject: `job '${showId(id)}'`,
    conflict: conflict.replace('%s', `'${showId(id)}'`),
  });
  const thread = (key: string | undefined): Record<string, string> =>
    key === undefined ? {} : { [Headers.opencodeSession]: key };

  return {
    async chatStream(body, opts = {}) {
      return startWithRetry(t, wait, opts, () =>
        openStream(
          t,
          {
            method: 'POST',
            path: '/v1/chat/completions',
            json: { ...body, stream: true },
            headers: { ...opts.headers, ...thread(opts.threadKey) },
            headersTimeoutMs: streamHeaders,
            signal: opts.signal,
            start: true,
          },
          { model: body.model, conflict: 'a deliberation is already running for this session', maxEventBytes },
        ),
      );
    },
    async chat(body, opts = {}) {
      // The answer comes when the deliberation ends, minutes later: only the deadline bounds it.
      const sent = await send(t, {
        method: 'POST',
        path: '/v1/chat/completions',
        json: { ...body, stream: false },
        headers: thread(opts.threadKey),
        accept: 'application/json',
        headersTimeoutMs: 0,
        bodyTimeoutMs: 0,
        signal: opts.signal,
        start: true,
      });
      if (sent.res.statusCode < 200 || sent.res.statusCode >= 300) {
        const refused = await statusError(t, sent, 'POST', {
          model: body.model,
          conflict: 'a deliberation is already running for this session',
        });
        // Not sent again here (a start without a stream is answered once), but the batch waits.
        if (refused.nothingStarted && refused.retryAfterS !== undefined) t.startGate?.hold(refused.retryAfterS * 1000);
        throw refused;
      }
      const what = `POST ${sent.path}`;
      const named = headerValue(sent.res.headers, Headers.nsedSessionId);
      const headerJob = named !== undefined && named !== '' ? named : undefined;
      try {
        if (headerJob !== undefined) await opts.onJob?.(headerJob);
        const { text, truncated } = await readText(sent.res.body, maxEventBytes);
        if (truncated) throw new NsedError('server', `the orchestrator's answer to ${what} exceeded the size limit`);
        const completion = parseChatCompletion(parseJsonBody(what, text, token));
        if (completion === undefined) throw unreadable(what, text, token);
        return { completion, jobId: headerJob ?? completion.nsed_metadata?.session_id };
      } catch (err) {
        const e = failureAfterSend(err, t, sent.guard, { method: 'POST', path: sent.path });
        // The job was named in the headers: a body cut off after them is a drop, and the answer
        // is still to be had from /result (docs/reliability.md #98).
        if (headerJob !== undefined && e.code === 'network' && e.drop === undefined)
          throw new NsedError(
            'network',
            `the answer to ${what} was cut off after its headers named deliberation ${showId(headerJob)}`,
            { drop: 'reset', cause: e },
          );
        throw e;
      } finally {
        sent.guard.dispose();
      }
    },
    async submit(body, opts = {}) {
      const room = `room '${showId(body.room_id)}' already has a running deliberation`;
      return startWithRetry(t, wait, opts, () =>
        json(
          { method: 'POST', path: '/deliberation', json: body, signal: opts.signal, start: true },
          { conflict: room },
          parseSubmit,
        ),
      );
    },
    async resume(jobId, opts = {}) {
      const d = jobDescribe(jobId, 'job %s has no live deliberation to resume');
      return openStream(
        t,
        { method: 'POST', path: `${job(jobId)}/resume`, headersTimeoutMs: streamHeaders, signal: opts.signal },
        { ...d, maxEventBytes, noStream204: d.conflict ?? '' },
      );
    },
    async jobStream(jobId, opts = {}) {
      const d = jobDescribe(jobId, 'job %s has no stream');
      return openStream(
        t,
        {
          method: 'GET',
          path: `/job/${encodeSegment(jobId)}/stream`,
          headersTimeoutMs: streamHeaders,
          signal: opts.signal,
        },
        { ...d, maxEventBytes, native: true },
      );
    },
    async result(jobId, opts = {}) {
      return json(
        { method: 'GET', path: `${job(jobId)}/result`, signal: opts.signal },
        jobDescribe(jobId, 'job %s'),
        (v) => parseJobResult(v, jobId),
      );
    },
    async details(jobId, opts = {}) {
      return json(
        { method: 'GET', path: `${job(jobId)}/details`, signal: opts.signal },
        jobDescribe(jobId, 'job %s'),
        parseDetails,
      );
    },
    async deliberations(opts = {}) {
      return json(
        { method: 'GET', path: '/deliberations', signal: opts.signal },
        { subject: 'GET /deliberations' },
        parseJobList,
      );
    },
    async inject(jobId, message, opts = {}) {
      return json(
        { method: 'POST', path: `${job(jobId)}/inject`, json: { message }, signal: opts.signal },
        jobDescribe(jobId, 'job %s is not running'),
        parseInjectAck,
      );
    },
    async cancel(jobId, opts = {}) {
      await call(
        {
          method: 'POST',
          path: `${job(jobId)}/cancel`,
          signal: opts.signal,
          ...(opts.pastDeadline === true ? { pastDeadline: true } : {}),
        },
        jobDescribe(jobId, 'job %s is not running'),
      );
    },
    async answerToolCall(jobId, callId, result, opts = {}) {
      const describe = {
        subject: `tool call '${showId(callId)}' of job '${showId(jobId)}'`,
        conflict: `tool call '${showId(callId)}' is no longer waiting (answered or expired)`,
      };
      await call(
        {
          method: 'POST',
          path: `${job(jobId)}/tool-calls/${encodeSegment(callId)}`,
          json: { result },
          signal: opts.signal,
        },
        describe,
      );
    },
    async toolCalls(jobId, opts = {}) {
      const query = opts.status === undefined ? '' : `?status=${opts.status}`;
      return json(
        { method: 'GET', path: `${job(jobId)}/tool-calls${query}`, signal: opts.signal },
        jobDescribe(jobId, 'job %s'),
        parseToolCalls,
      );
    },
    async policies(opts = {}) {
      const query = opts.tag === undefined ? '' : `?tag=${encodeURIComponent(opts.tag)}`;
      return json(
        { method: 'GET', path: `/policies${query}`, signal: opts.signal },
        { subject: 'GET /policies' },
        parsePolicies,
      );
    },
    async agents(opts = {}) {
      return json({ method: 'GET', path: '/agents', signal: opts.signal }, { subject: 'GET /agents' }, parseAgents);
    },
    async models(opts = {}) {
      return json(
        { method: 'GET', path: '/v1/models', signal: opts.signal },
        { subject: 'GET /v1/models' },
        parseModels,
      );
    },
    async health(opts = {}) {
      return json({ method: 'GET', path: '/health', signal: opts.signal }, { subject: 'GET /health' }, parseHealth);
    },
    async close() {
      await dispatcher.destroy();
    },
  };
}

/**
 * Sends a start again while the orchestrator answers 429/503 with a Retry-After (at most 60 s)
 * and no job id: that answer proves nothing was started, so a new send cannot double a job
 * (docs/reliability.md #40, #45). Bounded by the sends allowed and by the turn deadline; otherwise the refusal stands.
 */
async function startWithRetry<T>(
  t: Transport,
  wait: (ms: number, signal?: AbortSignal) => Promise<void>,
  opts: { signal?: AbortSignal; onRetry?: OnStartRetry },
  start: () => Promise<T>,
): Promise<T> {
  for (let sent = 1; ; sent++) {
    try {
      return await start();
    } catch (err) {
      const waitS = err instanceof NsedError && err.nothingStarted ? err.retryAfterS : undefined;
      if (waitS === undefined || sent >= START_SENDS) throw err;
      if (t.deadline !== undefined && t.now() + waitS * 1000 >= t.deadline) throw err;
      opts.onRetry?.(sent, `${err instanceof Error ? err.message : ''}; sending again in ${waitS} s`);
      // Shared: every start of the batch waits it out, this one too, as it passes the gate again.
      if (t.startGate !== undefined) {
        t.startGate.hold(waitS * 1000);
        continue;
      }
      try {
        await wait(waitS * 1000, opts.signal);
      } catch {
        throw err;
      }
    }
  }
}

import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Dispatcher } from 'undici';
import { asUnsent, NsedError } from '../errors.js';
import { connectError, errorCodes, isConnectPhaseError } from './network-errors.js';
import { displayUrl, hostPort } from './redact.js';
import { redactSecrets } from '../secrets.js';
import { RequestGuard, seconds } from './request-guard.js';

/** One orchestrator connection as every request sees it. */
export interface Transport {
  dispatcher: Dispatcher;
  base: URL;
  /** The base URL's path without trailing '/', prefixed to every request path. */
  basePath: string;
  token: string | undefined;
  connectTimeoutMs: number;
  idleTimeoutMs: number;
  deadline: number | undefined;
  now: () => number;
  /** The connect back-off's pauses (the client's `sleep`, a test's instant clock). */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  log: ((line: string) => void) | undefined;
  /** What every start waits on, when many turns share one orchestrator's back-off (`nsed batch`). */
  startGate?: StartGate | undefined;
}

/**
 * A back-off shared by the turns of one batch (docs/reliability.md #150): every start of a
 * deliberation passes it first, and a start the orchestrator turned away with a Retry-After
 * holds it shut that long, for every turn.
 */
export interface StartGate {
  /** Resolves once starts may go; rejects when `signal` aborts, or with the error that ends all starts. */
  pass(signal: AbortSignal): Promise<void>;
  /** The orchestrator asked for `ms` before the next start. */
  hold(ms: number): void;
}

export interface SendSpec {
  method: 'GET' | 'POST';
  /** Path below the base URL, starting with '/', ids already percent-encoded. */
  path: string;
  json?: unknown;
  headers?: Record<string, string>;
  accept: string;
  /** 0 = no limit. */
  headersTimeoutMs: number;
  /** undici's own between-reads limit; 0 for streams, which have the idle watch instead. */
  bodyTimeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Sent after the turn's deadline has passed (a cancel on exit): bounded by `signal` and the quick limits instead. */
  pastDeadline?: boolean;
  /** Starts a deliberation: it waits for the start gate first, if there is one. */
  start?: boolean;
}

export interface Sent {
  res: Dispatcher.ResponseData;
  /** Owned by the caller from here on: dispose it when the body is done. */
  guard: RequestGuard;
  /** Full path as sent, for messages: the token out, should the URL's path hold it (docs/reliability.md #89). */
  path: string;
  url: URL;
}

/** Connect-phase failures are retried after these pauses; nothing reached the server (docs/reliability.md #43). */
const CONNECT_BACKOFF_MS = [200, 400];

export function failureAfterSend(
  err: unknown,
  t: Transport,
  guard: RequestGuard,
  spec: { method: string; path: string; headersTimeoutMs?: number },
): NsedError {
  const ours = guard.abortError(t.idleTimeoutMs);
  if (ours !== undefined) return ours;
  if (err instanceof NsedError) return err;
  const codes = errorCodes(err);
  // Before the headers check: a proxy's silent CONNECT is a headers timeout underneath.
  if (isConnectPhaseError(err))
    return connectError(err, { hostPort: hostPort(t.base), connectTimeoutMs: t.connectTimeoutMs, token: t.token });
  if (codes.includes('UND_ERR_HEADERS_TIMEOUT')) {
    const limit = spec.headersTimeoutMs === undefined ? '' : ` within ${seconds(spec.headersTimeoutMs)} s`;
    const which = spec.headersTimeoutMs === t.idleTimeoutMs ? '--idle-timeout' : 'headers timeout';
    return new NsedError(
      'timeout',
      `the orchestrator sent no response to ${spec.method} ${spec.path}${limit} (${which})`,
      { cause: err },
    );
  }
  if (codes.includes('UND_ERR_BODY_TIMEOUT')) {
    return new NsedError(
      'timeout',
      `the orchestrator stopped sending its answer to ${spec.method} ${spec.path} (read timeout)`,
      { cause: err },
    );
  }
  return connectError(err, { hostPort: hostPort(t.base), connectTimeoutMs: t.connectTimeoutMs, token: t.token });
}

export async function send(t: Transport, spec: SendSpec): Promise<Sent> {
  const path = `${t.basePath}${spec.path}`;
  const url = new URL(`${t.base.origin}${path}`);
  // What messages name: every message about this request carries the path, and the URL's path
  // may hold the token (docs/reliability.md #89).
  const shown = redactSecrets(path, t.token);
  const headers: Record<string, string> = { accept: spec.accept, 'user-agent': 'nsed', ...spec.headers };
  let body: string | undefined;
  if (spec.json !== undefined) {
    body = JSON.stringify(spec.json);
    headers['content-type'] = 'application/json';
  }
  if (t.token !== undefined && t.token !== '') headers['authorization'] = `Bearer ${t.token}`;
  const guard = new RequestGuard({
    deadline: spec.pastDeadline === true ? undefined : t.deadline,
    now: t.now,
    signal: spec.signal,
  });
  const started = t.now();
  const wire = watchHeadersSent(spec.method, path);
  if (spec.start === true && t.startGate !== undefined) {
    try {
      await t.startGate.pass(guard.signal);
    } catch (held) {
      guard.dispose();
      wire.stop();
      // Nothing was sent: the turn may be forgotten as one that never left.
      throw asUnsent(failureAfterSend(held, t, guard, { method: spec.method, path: shown }));
    }
  }
  t.log?.(`${spec.method} ${displayUrl(url)}`);
  for (let attempt = 0; ; attempt++) {
    try {
      const ours = guard.abortError(t.idleTimeoutMs);
      if (ours !== undefined) throw ours;
      const res = await untilAborted(
        t.dispatcher.request({
          origin: t.base.origin,
          path,
          method: spec.method,
          headers,
          body: body ?? null,
          signal: guard.signal,
          headersTimeout: spec.headersTimeoutMs,
          bodyTimeout: spec.bodyTimeoutMs,
        }),
        guard.signal,
      );
      wire.stop();
      t.log?.(`${res.statusCode} ${spec.method} ${displayUrl(url)} (${seconds(t.now() - started)} s)`);
      return { res, guard, path: shown, url };
    } catch (err) {
      const retryable = guard.reason === undefined && !(err instanceof NsedError) && isConnectPhaseError(err);
      const pause = CONNECT_BACKOFF_MS[attempt];
      if (retryable && pause !== undefined) {
        t.log?.(
          `retrying ${spec.method} ${displayUrl(url)} in ${pause} ms (${errorCodes(err)[0] ?? 'connect failure'})`,
        );
        try {
          await t.sleep(pause, guard.signal);
          continue;
        } catch (slept) {
          guard.dispose();
          wire.stop();
          throw unsentIf(
            !wire.sent,
            failureAfterSend(slept, t, guard, {
              method: spec.method,
              path: shown,
              headersTimeoutMs: spec.headersTimeoutMs,
            }),
          );
        }
      }
      guard.dispose();
      wire.stop();
      const failure = failureAfterSend(err, t, guard, {
        method: spec.method,
        path: shown,
        headersTimeoutMs: spec.headersTimeoutMs,
      });
      throw unsentIf(!wire.sent && (retryable || guard.reason !== undefined), failure);
    }
  }
}

/**
 * Whether undici wrote the headers of this request to a socket. Until then nothing can have
 * reached the orchestrator, so a command may forget a turn it never managed to send. Matched
 * by method and path (a forward proxy sees the absolute URI); one process sends one request
 * to a path at a time.
 */
function watchHeadersSent(method: string, path: string): { readonly sent: boolean; stop(): void } {
  let sent = false;
  const onSend = (message: unknown): void => {
    const req = (message as { request?: { method?: unknown; path?: unknown } }).request;
    if (req?.method === method && typeof req.path === 'string' && req.path.endsWith(path)) sent = true;
  };
  subscribe(SEND_HEADERS, onSend);
  let stopped = false;
  return {
    get sent() {
      return sent;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      unsubscribe(SEND_HEADERS, onSend);
    },
  };
}

const SEND_HEADERS = 'undici:client:sendHeaders';

function unsentIf(unsent: boolean, e: NsedError): NsedError {
  return unsent ? asUnsent(e) : e;
}

/**
 * The request, or a rejection as soon as `signal` aborts. undici does not abort a request still
 * waiting for its connection (a proxy that never answers CONNECT), and --timeout must bound
 * every wait; a response that arrives after all is let go.
 */
function untilAborted(
  pending: Promise<Dispatcher.ResponseData>,
  signal: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  if (signal.aborted) {
    pending.then(
      (res) => discard(res.body),
      () => undefined,
    );
    return Promise.reject(new DOMException('aborted', 'AbortError'));
  }
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      pending.then(
        (res) => discard(res.body),
        () => undefined,
      );
      reject(new DOMException('aborted', 'AbortError'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (res) => {
        signal.removeEventListener('abort', onAbort);
        resolve(res);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/**
 * What a body nsed lets go of is destroyed with: one error, its stack formatted once. Destroyed
 * without one, an unfinished body gets a new error from undici, and Node formats the stack of
 * every error a stream is destroyed with: ~0.1 ms a turn, for a stack nobody reads.
 */
const RELEASED = new Error('the response body was let go');
void RELEASED.stack;

/**
 * Lets go of a response body and its socket. undici reports an unfinished body's destruction
 * as an 'error' event; nobody is listening any more, so it must not become an unhandled one.
 */
export function discard(body: Dispatcher.ResponseData['body']): void {
  if (body.destroyed) return;
  body.on('error', () => undefined);
  body.destroy(RELEASED);
}

/** Reads at most `limit` bytes of a body as UTF-8, then lets go of the rest. */
export async function readText(
  body: Dispatcher.ResponseData['body'],
  limit: number,
): Promise<{ text: string; truncated: boolean }> {
  const decoder = new TextDecoder('utf-8');
  let text = '';
  let seen = 0;
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    const room = limit - seen;
    seen += chunk.byteLength;
    if (chunk.byteLength >= room) {
      text += decoder.decode(chunk.subarray(0, Math.max(0, room)));
      if (seen > limit) {
        discard(body);
        return { text, truncated: true };
      }
      continue;
    }
    text += decoder.decode(chunk, { stream: true });
  }
  return { text: text + decoder.decode(), truncated: false };
}

/** An error body, bounded to 64 KiB; a body that fails mid-read still gives what arrived. */
export async function readErrorBody(sent: Sent): Promise<string> {
  try {
    return (await readText(sent.res.body, 64 * 1024)).text;
  } catch {
    return '';
  } finally {
    sent.guard.dispose();
  }
}

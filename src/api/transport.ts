import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { NsedError } from '../errors.js';
import { connectError, errorCodes, isConnectPhaseError } from './network-errors.js';
import { displayUrl, hostPort } from './redact.js';
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
  log: ((line: string) => void) | undefined;
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
}

export interface Sent {
  res: Dispatcher.ResponseData;
  /** Owned by the caller from here on: dispose it when the body is done. */
  guard: RequestGuard;
  /** Full path as sent, for messages. */
  path: string;
  url: URL;
}

/** Connect-phase failures are retried after these pauses; nothing reached the server (docs/reliability.md #43). */
const CONNECT_BACKOFF_MS = [200, 400];

export function failureAfterSend(err: unknown, t: Transport, guard: RequestGuard, spec: { method: string; path: string }): NsedError {
  const ours = guard.abortError(t.idleTimeoutMs);
  if (ours !== undefined) return ours;
  if (err instanceof NsedError) return err;
  const codes = errorCodes(err);
  if (codes.includes('UND_ERR_HEADERS_TIMEOUT')) {
    return new NsedError('timeout', `the orchestrator sent no response to ${spec.method} ${spec.path} (headers timeout)`, { cause: err });
  }
  if (codes.includes('UND_ERR_BODY_TIMEOUT')) {
    return new NsedError('timeout', `the orchestrator stopped sending its answer to ${spec.method} ${spec.path} (read timeout)`, { cause: err });
  }
  return connectError(err, { hostPort: hostPort(t.base), connectTimeoutMs: t.connectTimeoutMs, token: t.token });
}

export async function send(t: Transport, spec: SendSpec): Promise<Sent> {
  const path = `${t.basePath}${spec.path}`;
  const url = new URL(`${t.base.origin}${path}`);
  const headers: Record<string, string> = { accept: spec.accept, 'user-agent': 'nsed', ...spec.headers };
  let body: string | undefined;
  if (spec.json !== undefined) {
    body = JSON.stringify(spec.json);
    headers['content-type'] = 'application/json';
  }
  if (t.token !== undefined && t.token !== '') headers['authorization'] = `Bearer ${t.token}`;
  const guard = new RequestGuard({ deadline: t.deadline, now: t.now, signal: spec.signal });
  const started = t.now();
  t.log?.(`${spec.method} ${displayUrl(url)}`);
  for (let attempt = 0; ; attempt++) {
    try {
      const ours = guard.abortError(t.idleTimeoutMs);
      if (ours !== undefined) throw ours;
      const res = await t.dispatcher.request({
        origin: t.base.origin,
        path,
        method: spec.method,
        headers,
        body: body ?? null,
        signal: guard.signal,
        headersTimeout: spec.headersTimeoutMs,
        bodyTimeout: spec.bodyTimeoutMs,
      });
      t.log?.(`${res.statusCode} ${spec.method} ${displayUrl(url)} (${seconds(t.now() - started)} s)`);
      return { res, guard, path, url };
    } catch (err) {
      const retryable = guard.reason === undefined && !(err instanceof NsedError) && isConnectPhaseError(err);
      const pause = CONNECT_BACKOFF_MS[attempt];
      if (retryable && pause !== undefined) {
        t.log?.(`retrying ${spec.method} ${displayUrl(url)} in ${pause} ms (${errorCodes(err)[0] ?? 'connect failure'})`);
        try {
          await sleep(pause, undefined, { signal: guard.signal });
          continue;
        } catch (slept) {
          guard.dispose();
          throw failureAfterSend(slept, t, guard, { method: spec.method, path });
        }
      }
      guard.dispose();
      throw failureAfterSend(err, t, guard, { method: spec.method, path });
    }
  }
}

/**
 * Lets go of a response body and its socket. undici reports an unfinished body's destruction
 * as an 'error' event; nobody is listening any more, so it must not become an unhandled one.
 */
export function discard(body: Dispatcher.ResponseData['body']): void {
  if (body.destroyed) return;
  body.on('error', () => undefined);
  body.destroy();
}

/** Reads at most `limit` bytes of a body as UTF-8, then lets go of the rest. */
export async function readText(body: Dispatcher.ResponseData['body'], limit: number): Promise<{ text: string; truncated: boolean }> {
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

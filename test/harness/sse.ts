import { createParser } from 'eventsource-parser';
import { onTestFinished } from 'vitest';
import type { ChatCompletionChunk } from '../../src/protocol/wire.js';
import { type SimOptions, type SimServer, startSim } from '../../src/sim/server.js';
import { WAIT_MS } from './limits.js';

/**
 * Starts a fast simulator that is closed after the current test. The hook is the test's own
 * (onTestFinished), not a module-level afterEach: with isolate: false a module is evaluated once
 * per worker, so a module-level hook would belong to the first file that imported it only.
 */
export async function sim(opts: SimOptions = {}): Promise<SimServer> {
  const started = startSim({ port: 0, roundMs: 3, ...opts });
  onTestFinished(async () => {
    await (await started).close();
  });
  return started;
}

export interface SseResult {
  status: number;
  headers: Headers;
  /** Every data payload in order, `[DONE]` included, exactly as sent. */
  data: string[];
  /** The data payloads that parsed as chunks. */
  chunks: ChatCompletionChunk[];
  comments: string[];
  done: boolean;
  /** Set when the connection failed instead of ending cleanly. */
  error?: string;
  /** Milliseconds (since the response started) at which each network read arrived. */
  reads: number[];
  /** Set for a non-SSE answer (an error status). */
  body?: unknown;
}

export async function readSse(
  res: Response,
  onData?: (data: string, index: number) => void,
  onComment?: (comment: string, count: number) => void,
): Promise<SseResult> {
  const out: SseResult = {
    status: res.status,
    headers: res.headers,
    data: [],
    chunks: [],
    comments: [],
    done: false,
    reads: [],
  };
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const text = await res.text();
    try {
      out.body = JSON.parse(text) as unknown;
    } catch {
      out.body = text;
    }
    return out;
  }
  const parser = createParser({
    onEvent: (ev) => {
      out.data.push(ev.data);
      onData?.(ev.data, out.data.length);
      if (ev.data === '[DONE]') {
        out.done = true;
        return;
      }
      try {
        out.chunks.push(JSON.parse(ev.data) as ChatCompletionChunk);
      } catch {
        // A malformed chunk stays in `data` only; tests look for it there.
      }
    },
    onComment: (c) => {
      out.comments.push(c);
      onComment?.(c, out.comments.length);
    },
  });
  const started = performance.now();
  const decoder = new TextDecoder();
  const reader = res.body?.getReader();
  try {
    for (;;) {
      if (!reader) break;
      const { value, done } = await reader.read();
      if (done) break;
      out.reads.push(performance.now() - started);
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } catch (err) {
    out.error = err instanceof Error ? err.message : String(err);
  }
  return out;
}

export function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export async function postSse(url: string, body: unknown, headers: Record<string, string> = {}): Promise<SseResult> {
  return readSse(await post(url, body, headers));
}

export async function getJson(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) as unknown };
  } catch {
    return { status: res.status, body: text };
  }
}

export const ask = (content: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  model: 'nsed:*',
  stream: true,
  messages: [{ role: 'user', content }],
  ...extra,
});

export const contentOf = (chunks: readonly ChatCompletionChunk[]): string =>
  chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');

export const deltas = (
  chunks: readonly ChatCompletionChunk[],
): Array<ChatCompletionChunk['choices'][number]['delta']> =>
  chunks.flatMap((c) => (c.choices[0] ? [c.choices[0].delta] : []));

/** Data payloads with the per-job identity (chunk id, session id, time) blanked, for comparing runs. */
export function withoutIds(data: readonly string[]): string[] {
  return data.map((d) =>
    d
      .replace(/"id":"chatcmpl-[0-9a-f]+"/g, '"id":"X"')
      .replace(/"created":\d+/g, '"created":0')
      .replace(/"nsed_session_id":"[^"]*"/g, '"nsed_session_id":"X"'),
  );
}

/**
 * Polls until `check` holds, for what no event announces (a job's timers run on their own).
 * The limit guards against a hang only; prefer the simulator's control (hold, release, ended).
 */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = WAIT_MS): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 2));
  }
}

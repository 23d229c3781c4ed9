import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { NsedError } from '../../src/errors.js';
import type { StreamEvent } from '../../src/events/events.js';
import type { EventStream } from '../../src/api/client.js';
import { createStreamProcessor } from '../../src/api/stream-processor.js';

/** A request as the scripted server saw it. */
export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Route = (req: IncomingMessage, res: ServerResponse, seen: Seen) => unknown;

export interface ScriptedServer {
  url: string;
  port: number;
  seen: Seen[];
  /** Replaced per test: what the server answers. */
  route: Route;
  /** Resolves when every socket the server accepted so far has closed. */
  socketsClosed(): Promise<void>;
  close(): Promise<void>;
}

/** A node:http server on 127.0.0.1 port 0 that answers with exactly the bytes a test scripts. */
export async function startServer(route: Route = (_q, res) => res.end()): Promise<ScriptedServer> {
  const sockets = new Set<Socket>();
  const closed: Promise<void>[] = [];
  const state: ScriptedServer = {
    url: '',
    port: 0,
    seen: [],
    route,
    socketsClosed: () => Promise.all(closed).then(() => undefined),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const seen: Seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(parts).toString('utf8'),
      };
      state.seen.push(seen);
      Promise.resolve(state.route(req, res, seen)).catch(() => res.destroy());
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    closed.push(new Promise((resolve) => s.on('close', () => resolve())));
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  state.port = port;
  state.url = `http://127.0.0.1:${port}`;
  return state;
}

export function sseHead(res: ServerResponse, extra: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...extra });
  res.flushHeaders();
}

const flushed = (res: ServerResponse, piece: Uint8Array): Promise<void> =>
  new Promise((resolve, reject) => res.write(piece, (err) => (err ? reject(err) : resolve())));

/** Writes `bytes` cut at `cuts` (ascending offsets), each piece flushed before the next. */
export async function writeSplit(res: ServerResponse, bytes: Uint8Array, cuts: number[]): Promise<void> {
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut > at) await flushed(res, bytes.subarray(at, cut));
    at = cut;
  }
}

export async function writeBytewise(res: ServerResponse, bytes: Uint8Array): Promise<void> {
  for (let i = 0; i < bytes.length; i++) await flushed(res, bytes.subarray(i, i + 1));
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface Outcome {
  events: StreamEvent[];
  error?: {
    code: string;
    exitCode: number;
    drop: string | undefined;
    message: string;
    hint?: string | undefined;
    status?: number | undefined;
    retryAfterS?: number | undefined;
  };
}

export function describeError(err: unknown): NonNullable<Outcome['error']> {
  if (!(err instanceof NsedError)) throw err;
  return {
    code: err.code,
    exitCode: err.exitCode,
    drop: err.drop,
    message: err.message,
    hint: err.hint,
    status: err.status,
    retryAfterS: err.retryAfterS,
  };
}

/** Drains a client stream into events plus the error it ended with, if any; `onEvent` runs after each. */
export async function drain(stream: EventStream, onEvent?: (ev: StreamEvent) => void): Promise<Outcome> {
  const events: StreamEvent[] = [];
  try {
    for await (const ev of stream) {
      events.push(ev);
      onEvent?.(ev);
    }
    return { events };
  } catch (err) {
    return { events, error: describeError(err) };
  }
}

/** The parser layer alone, fed the given pieces, stopping as the socket loop does. */
export function runPieces(pieces: Uint8Array[], opts: { maxEventBytes?: number; token?: string } = {}): Outcome {
  const p = createStreamProcessor(opts);
  const events: StreamEvent[] = [];
  try {
    for (const piece of pieces) {
      p.push(piece, events);
      if (p.done) return { events };
    }
    p.end(events);
    return { events };
  } catch (err) {
    return { events, error: describeError(err) };
  }
}

/** Catches the NsedError a promise rejects with. */
export async function failure(p: Promise<unknown>): Promise<NonNullable<Outcome['error']>> {
  try {
    await p;
  } catch (err) {
    return describeError(err);
  }
  throw new Error('expected the call to fail');
}

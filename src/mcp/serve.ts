import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from '../run/context.js';
import { NsedError, usageError } from '../errors.js';
import { isLoopbackHost } from '../protocol/loopback.js';
import { Runner } from './runner.js';
import { HttpSessions } from './http-sessions.js';
import { originAdmitted } from './origin.js';
import { McpHub } from './server.js';
import { MAX_STDIO_MESSAGE_BYTES, messageLines } from './stdio-lines.js';
import { MCP_TOOLS, type McpToolDef } from './tool-defs.js';
import type { OnCancel } from './tools.js';

/** Where `nsed mcp` listens: stdio (the default) or Streamable HTTP. */
export type McpListen =
  { kind: 'stdio' } | { kind: 'http'; host: string; port: number; token: string; allowOrigins: readonly string[] };

/**
 * Serves MCP until the host goes away (stdin ends, or a signal): then the runs stop as on
 * Ctrl-C, each under the `--on-exit` rule (detach by default, so the deliberation goes on and
 * `nsed resume` or `wait` picks it up again, docs/reliability.md #213).
 */
export async function serveMcp(
  ctx: Context,
  listen: McpListen,
  protocol: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream },
  cwd: string,
  tools: readonly McpToolDef[] = MCP_TOOLS,
  onCancel: OnCancel = 'cancel',
): Promise<number> {
  const hub = new McpHub(ctx, (log) => new Runner(ctx, log), cwd, tools, onCancel);
  const gone = new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    if (listen.kind === 'stdio') {
      protocol.stdin.once('end', () => resolve());
      protocol.stdin.once('close', () => resolve());
    }
  });
  let http: HttpServing | undefined;
  if (listen.kind === 'stdio') {
    // A message over the cap is answered with a JSON-RPC error (its id unread: null) and said on
    // stderr, and the server goes on; the SDK's reader would end it silently, exit 0.
    const lines = messageLines(MAX_STDIO_MESSAGE_BYTES, (bytes) => {
      const cap = `${MAX_STDIO_MESSAGE_BYTES / 1024 / 1024} MiB`;
      const message = `a message of ${bytes} bytes is over the ${cap} nsed mcp reads; it was dropped unread`;
      protocol.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message } })}\n`);
      ctx.io.stderr.write(`nsed mcp: ${message}\n`);
    });
    (protocol.stdin as Readable).pipe(lines);
    // Each line reaches the SDK whole, its newline with it: one over the message cap.
    const transport = new StdioServerTransport(lines, protocol.stdout as Writable, {
      maxBufferSize: MAX_STDIO_MESSAGE_BYTES + 1,
    });
    await hub.server().connect(transport);
  } else {
    http = await serveHttp(ctx, hub, listen);
  }
  await gone;
  await hub.close();
  await http?.stop();
  // A signal ends it as it ends every command (143 for SIGTERM); the host going away is no failure.
  return ctx.signal.aborted ? (ctx.signalExit() ?? 0) : 0;
}

/** The largest request body read before a session exists: the MCP SDK's own cap on a body. */
const MAX_INIT_BODY_BYTES = 4 * 1024 * 1024;

/** `nsed mcp --http` while it serves: where, its live sessions (tests count them), and how it stops. */
export interface HttpServing {
  url: string;
  sessions: HttpSessions<StreamableHTTPServerTransport>;
  stop(): Promise<void>;
}

/**
 * One transport (and one MCP server) per MCP session; every request must carry the token. A
 * request without a session allocates nothing unless it is an initialize, and the sessions are
 * capped and expire when idle (http-sessions.ts; docs/reliability.md #287).
 */
export async function serveHttp(
  ctx: Context,
  hub: McpHub,
  listen: Extract<McpListen, { kind: 'http' }>,
): Promise<HttpServing> {
  const transports = new HttpSessions<StreamableHTTPServerTransport>(() => ctx.clock.now().getTime());
  const expected = Buffer.from(`Bearer ${listen.token}`);
  const authorised = (req: IncomingMessage): boolean => {
    const got = Buffer.from(String(req.headers.authorization ?? ''));
    return got.length === expected.length && timingSafeEqual(got, expected);
  };
  const loopback = isLoopbackHost(listen.host);
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/mcp') return plain(res, 404, 'not found: the MCP endpoint is /mcp');
    const origin = req.headers.origin;
    if (!originAdmitted(origin, listen.allowOrigins))
      return plain(
        res,
        403,
        `forbidden: Origin ${String(origin).slice(0, 100)} is not loopback; nsed mcp --allow-origin ORIGIN admits a page of another origin`,
      );
    if (!authorised(req)) {
      res.setHeader('www-authenticate', 'Bearer');
      return plain(res, 401, 'unauthorized: send Authorization: Bearer with the NSED_MCP_TOKEN value');
    }
    await transports.expire();
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const transport = transports.use(sid, res);
      if (transport === undefined) return plain(res, 404, 'unknown MCP session: initialize again');
      return transport.handleRequest(req, res);
    }
    // No session: only an initialize may make one, and nothing is allocated before it is known to be one.
    const body = req.method === 'POST' ? await readBody(req, MAX_INIT_BODY_BYTES) : undefined;
    if (body === 'too large')
      return rpcError(
        res,
        413,
        -32000,
        `Payload Too Large: a request body must not exceed ${MAX_INIT_BODY_BYTES} bytes`,
      );
    let parsed: unknown;
    try {
      parsed = body === undefined ? undefined : (JSON.parse(body.toString('utf8')) as unknown);
    } catch {
      return rpcError(res, 400, -32700, 'Parse error: Invalid JSON');
    }
    if (!isInitializeRequest(parsed))
      return rpcError(res, 400, -32000, 'Bad Request: no MCP session; send initialize first, then its Mcp-Session-Id');
    if (!(await transports.makeRoom()))
      return rpcError(res, 503, -32000, 'Service Unavailable: every MCP session is busy; close one or try again later');
    const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => transports.add(id, created),
      // A page in a browser could reach a loopback port under another name (DNS rebinding).
      ...(loopback
        ? {
            enableDnsRebindingProtection: true,
            allowedHosts: [`127.0.0.1:${port()}`, `localhost:${port()}`, `[::1]:${port()}`],
          }
        : {}),
    });
    created.onclose = () => {
      if (created.sessionId !== undefined) transports.forget(created.sessionId);
    };
    await hub.server().connect(created);
    await created.handleRequest(req, res, parsed);
    // An initialize the transport refused (a wrong Accept header) made no session: let its server go.
    if (created.sessionId === undefined) await created.close();
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) plain(res, 500, 'internal error');
      else res.end();
    });
  });
  const port = (): number => {
    const a = server.address();
    return typeof a === 'object' && a !== null ? a.port : listen.port;
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new NsedError('usage', `cannot listen on ${listen.host}:${listen.port}: ${err.code ?? err.message}`)),
    );
    server.listen(listen.port, listen.host, () => resolve());
  });
  const shown = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  ctx.io.stderr.write(`nsed mcp listening on http://${shown}:${port()}/mcp\n`);
  return {
    url: `http://${shown}:${port()}/mcp`,
    sessions: transports,
    stop: async () => {
      await transports.closeAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A request's body, read to its end, or 'too large' once it passes `max` bytes (the rest left unread). */
async function readBody(req: IncomingMessage, max: number): Promise<Buffer | 'too large'> {
  if (Number(req.headers['content-length']) > max) return 'too large';
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) return 'too large';
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

/** A JSON-RPC error as the SDK's transport answers one before any message is read: `id` null. */
function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(`${text}\n`);
}

/**
 * `--http` on an address other than loopback only when `--host` names it, and always with a
 * token; the port is the flag's, already checked against its bounds (commands/mcp.ts).
 */
export function httpListen(
  host: string,
  port: number,
  token: string | undefined,
  allowOrigins: readonly string[] = [],
): Extract<McpListen, { kind: 'http' }> {
  // A token of spaces and a letter is no secret; a space or control character cannot travel in a header as written.
  if (token === undefined || !/^[\x21-\x7e]{16,}$/.test(token))
    throw usageError(
      '--http needs NSED_MCP_TOKEN of 16 characters or more, each a visible ASCII character (no spaces): every request must present it',
      'export NSED_MCP_TOKEN="$(openssl rand -hex 24)" and give the host the same value as a Bearer token',
    );
  return { kind: 'http', host, port, token, allowOrigins };
}

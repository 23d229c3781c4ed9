import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Context } from '../context.js';
import { NsedError, usageError } from '../errors.js';
import { isLoopbackHost } from '../protocol/loopback.js';
import { Runner } from './runner.js';
import { originAdmitted } from './origin.js';
import { McpHub } from './server.js';
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
  onCancel: OnCancel = 'cancel',
): Promise<number> {
  const hub = new McpHub(ctx, (log) => new Runner(ctx, log), cwd, onCancel);
  const gone = new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    if (listen.kind === 'stdio') {
      protocol.stdin.once('end', () => resolve());
      protocol.stdin.once('close', () => resolve());
    }
  });
  let stopHttp: (() => Promise<void>) | undefined;
  if (listen.kind === 'stdio') {
    const transport = new StdioServerTransport(protocol.stdin as Readable, protocol.stdout as Writable);
    await hub.server().connect(transport);
  } else {
    stopHttp = await serveHttp(ctx, hub, listen);
  }
  await gone;
  await hub.close();
  await stopHttp?.();
  return 0;
}

/** One transport (and one MCP server) per MCP session; every request must carry the token. */
async function serveHttp(
  ctx: Context,
  hub: McpHub,
  listen: Extract<McpListen, { kind: 'http' }>,
): Promise<() => Promise<void>> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
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
    const sid = req.headers['mcp-session-id'];
    let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
    if (transport === undefined) {
      if (typeof sid === 'string') return plain(res, 404, 'unknown MCP session: initialize again');
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, created),
        // A page in a browser could reach a loopback port under another name (DNS rebinding).
        ...(loopback
          ? {
              enableDnsRebindingProtection: true,
              allowedHosts: [`127.0.0.1:${port()}`, `localhost:${port()}`, `[::1]:${port()}`],
            }
          : {}),
      });
      created.onclose = () => {
        if (created.sessionId !== undefined) transports.delete(created.sessionId);
      };
      await hub.server().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
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
  return async () => {
    await Promise.allSettled([...transports.values()].map((t) => t.close()));
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
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
): McpListen {
  if (token === undefined || token.length < 16)
    throw usageError(
      '--http needs NSED_MCP_TOKEN (16 characters or more): every request must present it',
      'export NSED_MCP_TOKEN="$(openssl rand -hex 24)" and give the host the same value as a Bearer token',
    );
  return { kind: 'http', host, port, token, allowOrigins };
}

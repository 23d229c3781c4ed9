// An MCP host as a coding agent runs one: the SDK's own client, `nsed mcp` spawned over stdio
// (StdioClientTransport) with a rig's orchestrator and store, and what the server says kept for
// the test to wait on (its log messages arrive as events, never polled).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  type CallToolResult,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { Arrivals } from './arrivals.js';
import { CLI } from './process.js';
import type { Rig } from './rig.js';

export type Structured = Record<string, unknown>;

export interface McpHost {
  client: Client;
  /** The `nsed mcp` process's id, for a test that kills it as a crash would. */
  pid: number;
  /** The server's stderr and log messages so far, for the message of a failing assertion. */
  said(): string;
  /** Resolves with the first log message (past or next) that matches; throws after WAIT_MS. */
  logged(re: RegExp): Promise<string>;
  close(): Promise<void>;
}

/**
 * `nsed mcp ARGS` as a host starts it. `elicit`: the host supports elicitation and answers each
 * request with what it returns (a promise the test settles when it chooses).
 */
export async function connectMcp(
  rig: Rig,
  opts: {
    args?: string[];
    env?: Record<string, string>;
    /** The working directory: the workspace root of a host that declares none. */
    cwd?: string;
    elicit?: (message: string) => Promise<ElicitResult>;
  } = {},
): Promise<McpHost> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...(opts.args ?? [])],
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...rig.env, ...opts.env },
    stderr: 'pipe',
    ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
  });
  let err = '';
  const logs = new Arrivals('log message');
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client(
    { name: 'nsed-test-host', version: '1.0.0' },
    { capabilities: opts.elicit === undefined ? {} : { elicitation: { form: {} } } },
  );
  const elicit = opts.elicit;
  if (elicit !== undefined) client.setRequestHandler(ElicitRequestSchema, (req) => elicit(String(req.params.message)));
  await client.connect(transport);
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    const line = String(n.params.data);
    err += `log ${n.params.level}: ${line}\n`;
    logs.push(line);
  });
  const pid = transport.pid;
  if (pid === null) throw new Error('nsed mcp did not start');
  return {
    client,
    pid,
    said: () => err,
    logged: (re) => logs.first(re),
    close: () => client.close(),
  };
}

export const structured = (r: unknown): Structured => (r as CallToolResult).structuredContent as Structured;
export const text = (r: unknown): string =>
  ((r as CallToolResult).content ?? []).flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
export const isError = (r: unknown): boolean => (r as CallToolResult).isError === true;

/** Calls `wait` with `after` until the deliberation is done; each call bounded by its own timeout_s. */
export async function waitToEnd(client: Client, session: string): Promise<Structured> {
  let after = 0;
  for (let calls = 1; calls <= 200; calls++) {
    const s = structured(await client.callTool({ name: 'wait', arguments: { session, after, timeout_s: 30 } }));
    if (s['done'] === true) return s;
    after = Number(s['seq']);
  }
  throw new Error('wait never reported done');
}

// An MCP host as the tests of `nsed mcp` play it: the SDK's own client, spawning the built CLI
// over stdio (StdioClientTransport) with the rig's store and orchestrator.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI } from './process.js';
import type { Rig } from './rig.js';

export interface McpHost {
  client: Client;
  /** The `nsed mcp` process's id, for a test that kills it as a crash would. */
  pid: number;
  /** Its stderr and the log messages it sent, for the message of a failing assertion. */
  stderr: () => string;
  close(): Promise<void>;
}

/** `nsed mcp` as a host starts it: the bin, over stdio, in `cwd` when given. */
export async function connectMcp(
  rig: Rig,
  opts: { env?: Record<string, string>; cwd?: string } = {},
): Promise<McpHost> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp'],
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...rig.env, ...opts.env },
    stderr: 'pipe',
    ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'nsed-test-host', version: '1.0.0' });
  await client.connect(transport);
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    err += `log ${n.params.level}: ${String(n.params.data)}\n`;
  });
  const pid = transport.pid;
  if (pid === null) throw new Error('nsed mcp did not start');
  return { client, pid, stderr: () => err, close: () => client.close() };
}

export type Structured = Record<string, unknown>;

export const structuredOf = (r: unknown): Structured => (r as CallToolResult).structuredContent as Structured;
export const textOf = (r: unknown): string =>
  ((r as CallToolResult).content ?? []).flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
export const isError = (r: unknown): boolean => (r as CallToolResult).isError === true;

// The tool list a host's model reads on every request: the real `nsed mcp` spawned over stdio
// and listed by the MCP TypeScript SDK's own client. The default list is bounded in bytes (as the
// client's tools/list JSON), `--tools` and NSED_MCP_TOOLS serve a subset (and refuse a tool the
// subset leaves out), an unknown name is exit 2 naming it, and `--print-tools` reports the same
// size the client measures.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { MCP_TOOLS } from '../../src/mcp/tool-defs.js';
import { CLI, spawnCli } from '../harness/process.js';
import { tempHome } from '../harness/temp-store.js';

/** The bound on the default list: 12 KB of JSON. */
const MAX_LIST_BYTES = 12 * 1024;

/** `nsed mcp` with these words and environment, as a host starts it; the client listing its tools. */
async function listed(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ names: string[]; bytes: number; client: Client }> {
  const home = await tempHome();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    env: { PATH: process.env['PATH'] ?? '', HOME: home, NSED_HOME: home, ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'nsed-test-host', version: '1.0.0' });
  await client.connect(transport);
  const result = await client.listTools();
  return {
    names: result.tools.map((t) => t.name),
    bytes: Buffer.byteLength(JSON.stringify(result), 'utf8'),
    client,
  };
}

describe('the tool list of nsed mcp, as the SDK client lists it', { timeout: 60_000 }, () => {
  it('by default holds every tool in at most 12 KB of JSON, the size --print-tools reports', async () => {
    const { names, bytes, client } = await listed([]);
    await client.close();
    expect(names).toEqual(MCP_TOOLS.map((t) => t.name));
    expect(bytes).toBeLessThanOrEqual(MAX_LIST_BYTES);

    const printed = await spawnCli(['mcp', '--print-tools'], { env: { HOME: await tempHome() } }).result;
    expect(printed.code, printed.stderr).toBe(ExitCode.ok);
    const total = /^tools\/list: ([\d,]+) bytes of JSON, about ([\d,]+) tokens \(9 tools\)$/m.exec(printed.stdout);
    expect(total, printed.stdout).not.toBeNull();
    expect(Number(total?.[1]?.replaceAll(',', ''))).toBe(bytes);
    expect(Number(total?.[2]?.replaceAll(',', ''))).toBe(Math.ceil(bytes / 4));
    for (const t of MCP_TOOLS) expect(printed.stdout).toMatch(new RegExp(`^${t.name} +[\\d,]+ bytes$`, 'm'));
  });

  it('--tools serves those tools alone, in that order, and refuses a call to any other', async () => {
    const { names, client } = await listed(['--tools', 'deliberate,wait,verdict']);
    try {
      expect(names).toEqual(['deliberate', 'wait', 'verdict']);
      // A tool not served is unknown to this server: the request's error, as the spec has it
      // for any unknown tool (reliability #285), not a tool result.
      await expect(client.callTool({ name: 'sessions', arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringMatching(/unknown tool: sessions/),
      });
    } finally {
      await client.close();
    }
  });

  it('NSED_MCP_TOOLS serves a subset when --tools is not given; --tools wins over it', async () => {
    const fromEnv = await listed([], { NSED_MCP_TOOLS: 'wait,verdict' });
    await fromEnv.client.close();
    expect(fromEnv.names).toEqual(['wait', 'verdict']);
    const flag = await listed(['--tools', 'sessions'], { NSED_MCP_TOOLS: 'wait,verdict' });
    await flag.client.close();
    expect(flag.names).toEqual(['sessions']);
  });

  it('a subset is smaller than the whole list, as --print-tools shows it', async () => {
    const all = await spawnCli(['mcp', '--print-tools'], { env: { HOME: await tempHome() } }).result;
    const three = await spawnCli(['mcp', '--print-tools', '--tools', 'deliberate,wait,verdict'], {
      env: { HOME: await tempHome() },
    }).result;
    const bytesOf = (out: string): number => Number(/tools\/list: ([\d,]+) bytes/.exec(out)?.[1]?.replaceAll(',', ''));
    expect(three.stdout).toMatch(/\(3 tools\)\n$/);
    expect(bytesOf(three.stdout)).toBeLessThan(bytesOf(all.stdout));
  });

  it.each([
    [['--tools', 'deliberate,frobnicate'], {}, "nsed: --tools names no tool 'frobnicate'"],
    [[], { NSED_MCP_TOOLS: 'wait,Deliberate' }, "nsed: NSED_MCP_TOOLS names no tool 'Deliberate'"],
    [['--tools', ','], {}, 'nsed: --tools names no tool'],
  ])('an unknown tool name is exit 2 naming it, before anything is served (%j %j)', async (args, env, line) => {
    const r = await spawnCli(['mcp', ...args], { env: { HOME: await tempHome(), ...env }, stdin: '' }).result;
    expect(r.code).toBe(ExitCode.usage);
    expect(r.stdout).toBe('');
    const [first, hint, rest] = r.stderr.split('\n');
    expect(first).toBe(line);
    expect(hint).toMatch(
      /^hint: (the tools are|name some of) deliberate, wait, continue, fork, inject, cancel, answer_tool_call, verdict, sessions$/,
    );
    expect(rest).toBe('');
  });
});

// What a host sends `nsed mcp` that it should not: a FIFO among the files, a question with no
// text, a message over the stdio cap; and how the server ends. The real CLI, spawned.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, isError, text, type McpHost } from '../harness/mcp-host.js';
import { ExitCode } from '../../src/errors.js';
import { useRig, waitForOutput } from '../harness/rig.js';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-host', version: '1.0.0' } },
};

describe('nsed mcp: input a host should not send', { timeout: 180_000 }, () => {
  const rig = useRig();
  let workspace: string;
  let host: McpHost;
  beforeAll(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'nsed-mcp-ws-'));
    execFileSync('mkfifo', [join(workspace, 'pipe')]);
    host = await connectMcp(rig, { cwd: workspace });
  });
  afterAll(async () => {
    await host.close();
    await rm(workspace, { recursive: true, force: true });
  });

  const posts = (): number => rig.sim.requests.filter((q) => q.method === 'POST').length;

  it('a FIFO nobody writes to, named in files, ends the call at its own timeout_s, and nothing is sent (reliability #288)', async () => {
    const before = posts();
    const r = await host.client.callTool({
      name: 'deliberate',
      arguments: { question: 'What is in the pipe?', files: ['pipe'], timeout_s: 1 },
    });
    expect(isError(r)).toBe(true);
    expect(text(r)).toMatch(
      /^timeout \(exit 124\): nothing ended files \S+\/pipe within the tool call's timeout_s \(1 s\)/,
    );
    expect(posts()).toBe(before);
    // The server goes on.
    expect((await host.client.listTools()).tools.length).toBeGreaterThan(0);
  });
  it('a question of nothing but control or zero-width characters is refused before anything is sent (reliability #290)', async () => {
    const before = posts();
    for (const question of ['\u0000', '\u200b \u0007\n']) {
      const r = await host.client.callTool({ name: 'deliberate', arguments: { question } });
      expect(isError(r)).toBe(true);
      expect(text(r)).toMatch(/^usage \(exit 2\): question: has no text, only white space or control characters/);
    }
    expect(posts()).toBe(before);
  });
});

describe('nsed mcp: its token and how it ends', { timeout: 180_000 }, () => {
  const rig = useRig();

  it('--http refuses an NSED_MCP_TOKEN of fifteen spaces and a letter, exit 2, before it listens (reliability #290)', async () => {
    const r = await rig.run(['mcp', '--http', '0'], { env: { NSED_MCP_TOKEN: `${' '.repeat(15)}a` } });
    expect(r.code).toBe(ExitCode.usage);
    expect(r.stderr).toMatch(/--http needs NSED_MCP_TOKEN of 16 characters or more, each a visible ASCII character/);
    expect(r.stderr).not.toContain('listening');
  });

  it('a message over 10 MiB is answered with a JSON-RPC error and said on stderr; the server goes on, and exits 0 when the host leaves (reliability #289)', async () => {
    const server = rig.spawn(['mcp'], { stdin: 'inherit-open' });
    const send = (m: unknown): boolean | undefined => server.stdin?.write(`${JSON.stringify(m)}\n`);
    send(INITIALIZE);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const huge = 'x'.repeat(11 * 1024 * 1024);
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'deliberate', arguments: { question: huge } },
    });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    await waitForOutput(server, (o) => o.includes('"id":3'));
    server.stdin?.end();
    const end = await server.result;
    expect(end.code, end.stderr).toBe(0);
    const answers = end.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { id: number | null; error?: { code: number; message: string } });
    expect(answers.map((a) => a.id)).toEqual([1, null, 3]);
    expect(answers[1]?.error).toEqual({
      code: -32600,
      message: expect.stringMatching(
        /^a message of 1153\d{4} bytes is over the 10 MiB nsed mcp reads; it was dropped unread$/,
      ),
    });
    expect(end.stderr).toMatch(
      /^nsed mcp: a message of \d+ bytes is over the 10 MiB nsed mcp reads; it was dropped unread$/m,
    );
    expect(rig.sim.requests.filter((q) => q.method === 'POST')).toEqual([]);
  });

  it('exits 143 on SIGTERM, as every other command does (reliability #290)', async () => {
    const server = rig.spawn(['mcp'], { stdin: 'inherit-open' });
    // Answered initialize: the server is up, and its signal handlers with it.
    server.stdin?.write(`${JSON.stringify(INITIALIZE)}\n`);
    await waitForOutput(server, (o) => o.includes('"id":1'));
    server.kill('SIGTERM');
    const end = await server.result;
    expect(end.signal).toBeNull();
    expect(end.code, end.stderr).toBe(143);
  });
});

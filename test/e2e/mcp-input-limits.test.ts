// What a host sends `nsed mcp` that it should not: a FIFO among the files, a question with no
// text, a message over the stdio cap; and how the server ends. The real CLI, spawned.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, isError, textOf, type McpHost } from '../harness/mcp-host.js';
import { useRig } from '../harness/rig.js';

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
    expect(textOf(r)).toMatch(
      /^timeout \(exit 124\): nothing ended -f \S+\/pipe within the tool call's timeout_s \(1 s\)/,
    );
    expect(posts()).toBe(before);
    // The server goes on.
    expect((await host.client.listTools()).tools.length).toBeGreaterThan(0);
  });
});

import { describe, expect, it } from 'vitest';
import { startPlainServer } from '../everyday/plain-server.js';
import { useRig } from '../harness/rig.js';

/** nsed doctor tells a plain OpenAI-compatible server (where -m works) from a server where nothing does. */

const rig = useRig();

describe('nsed doctor against a plain OpenAI-compatible server', () => {
  it('says that -m works there, and exits 0, instead of "not ready"', async () => {
    const plain = await startPlainServer('Plain answer.');
    try {
      const r = await rig.run(['doctor', '--url', plain.url]);
      expect(r.code, r.stdout).toBe(0);
      expect(r.stdout).not.toMatch(/not ready/);
      expect(r.stdout).toMatch(
        /^✓ server: an OpenAI-compatible server, not an NSED orchestrator \(2 models: llama3\.2, qwen2\.5:7b\)/m,
      );
      expect(r.stdout).not.toMatch(/^✗/m);
      expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('ready for -m: nsed ask -m llama3.2 works here');
      const json = JSON.parse((await rig.run(['doctor', '--url', plain.url, '-o', 'json'])).stdout) as {
        ok: boolean;
        checks: Array<{ name: string; ok: boolean }>;
      };
      expect(json.ok).toBe(true);
      expect(json.checks.find((c) => c.name === 'server')?.ok).toBe(true);
      // What doctor promises works: ask -m with the model it named.
      expect((await rig.run(['ask', '--url', plain.url, '-m', 'llama3.2', '-o', 'final', 'hi'])).stdout).toBe(
        'Plain answer.\n',
      );
    } finally {
      await plain.close();
    }
  });

  it('still fails where nothing OpenAI-compatible answers either (exit 3, no /policies, no /v1/models)', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((_req, res) => res.writeHead(404).end('no'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const r = await rig.run(['doctor', '--url', `http://127.0.0.1:${port}`]);
      expect(r.code).toBe(3);
      expect(r.stdout).toMatch(
        /^✗ server: not an NSED orchestrator \(GET \/policies: 404\), and GET \/v1\/models failed/m,
      );
      expect(r.stdout).toMatch(/not ready \(exit 3\)/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

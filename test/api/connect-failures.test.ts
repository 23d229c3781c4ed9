import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type NsedClient } from '../../src/api/client.js';
import { failure, startServer, type ScriptedServer } from '../harness/scripted-server.js';

const TOKEN = 'nsed-canary-req-91c2e7';
const request = { model: 'nsed:deep', messages: [{ role: 'user' as const, content: 'Design a cache' }] };

let server: ScriptedServer;
let client: NsedClient;

beforeAll(async () => {
  server = await startServer();
  client = createClient({ baseUrl: `${server.url}/`, token: TOKEN, idleTimeoutMs: 5_000 });
});

afterAll(async () => {
  await client.close();
  await server.close();
});

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

describe('connection failures (reliability #43, #51)', () => {
  it('retries a refused connection twice, then exits 6 naming the host', async () => {
    const port = await closedPort();
    const lines: string[] = [];
    const pauses: number[] = [];
    const c = createClient({
      baseUrl: `http://127.0.0.1:${port}`,
      idleTimeoutMs: 1_000,
      env: { NSED_DEBUG: '1' },
      debug: (l) => lines.push(l),
      // Records the back-off's pauses instead of waiting them.
      sleep: (ms) => {
        pauses.push(ms);
        return Promise.resolve();
      },
    });
    const err = await failure(c.chatStream(request));
    expect(err).toMatchObject({
      code: 'network',
      exitCode: 6,
      message: `cannot reach the orchestrator at 127.0.0.1:${port}: connection refused`,
    });
    expect(lines.filter((l) => l.startsWith('retrying'))).toHaveLength(2);
    expect(pauses).toEqual([200, 400]);
    await c.close();
  });

  it('names NODE_EXTRA_CA_CERTS when the TLS handshake fails', async () => {
    const c = createClient({ baseUrl: server.url.replace('http:', 'https:'), idleTimeoutMs: 1_000 });
    server.route = (_q, res) => res.end();
    const err = await failure(c.policies());
    expect(err).toMatchObject({ code: 'network', exitCode: 6 });
    expect(err.message).toContain('TLS handshake failed');
    expect(err.hint).toContain('NODE_EXTRA_CA_CERTS');
    await c.close();
  });

  it('never re-sends a POST whose connection failed after the request went out (reliability #40, #44)', async () => {
    const before = server.seen.length;
    server.route = (_q, res) => res.socket?.destroy();
    const err = await failure(client.chatStream(request));
    expect(err).toMatchObject({ code: 'network', exitCode: 6, drop: undefined });
    expect(err.message).toMatch(/^the connection to 127\.0\.0\.1:\d+ was closed before the orchestrator answered$/);
    expect(server.seen.length - before).toBe(1);
  });

  it('bounds a non-streaming chat only by the deadline', async () => {
    const c = createClient({
      baseUrl: server.url,
      idleTimeoutMs: 50,
      headersTimeoutMs: 50,
      deadline: Date.now() + 400,
    });
    server.route = () => undefined;
    const started = Date.now();
    const err = await failure(c.chat(request));
    expect(err).toMatchObject({ code: 'timeout', exitCode: 124, message: 'the turn did not finish within --timeout' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    await c.close();
  });

  it('stops retrying at the deadline', async () => {
    const port = await closedPort();
    const c = createClient({ baseUrl: `http://127.0.0.1:${port}`, idleTimeoutMs: 1_000, deadline: Date.now() + 100 });
    // Retrying past the deadline would end in a refused connection (network, 6), not a timeout.
    expect(await failure(c.policies())).toMatchObject({ code: 'timeout', exitCode: 124 });
    await c.close();
  });
});

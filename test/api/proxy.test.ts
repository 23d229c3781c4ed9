import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { isLoopbackHost } from '../../src/protocol/loopback.js';
import { drain, failure, startServer, type ScriptedServer } from '../harness/scripted-server.js';

/** docs/reliability.md #50: proxy variables from the env the caller passes, NO_PROXY, loopback always direct. */

const REMOTE = 'http://orchestrator.invalid:80';
const POLICIES = [{ policy_id: 'p1', name: 'fast', tags: ['fast'] }];

let proxy: ScriptedServer;
let direct: ScriptedServer;
let proxyUrl: string;

beforeAll(async () => {
  // A plain-HTTP forward proxy: it receives absolute-URI requests and answers for the origin.
  proxy = await startServer((req, res) => {
    if (req.url?.endsWith('/v1/chat/completions') === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: {"choices":[{"index":0,"delta":{"content":"via proxy"}}]}\n\ndata: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(POLICIES));
  });
  direct = await startServer((_q, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(POLICIES));
  });
  proxyUrl = proxy.url;
});

afterAll(async () => {
  await proxy.close();
  await direct.close();
});

describe('proxies (reliability #50)', () => {
  it('sends a request for a remote orchestrator through HTTP_PROXY as an absolute URI', async () => {
    const before = proxy.seen.length;
    const c = createClient({
      baseUrl: REMOTE,
      token: 'tok-proxy-1',
      idleTimeoutMs: 2_000,
      env: { HTTP_PROXY: proxyUrl },
    });
    expect(await c.policies()).toMatchObject([{ policy_id: 'p1' }]);
    const seen = proxy.seen.slice(before);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.url).toBe('http://orchestrator.invalid/policies');
    expect(seen[0]?.headers['host']).toBe('orchestrator.invalid');
    expect(seen[0]?.headers['authorization']).toBe('Bearer tok-proxy-1');
    await c.close();
  });

  it('streams through the proxy', async () => {
    const c = createClient({ baseUrl: REMOTE, idleTimeoutMs: 2_000, env: { http_proxy: proxyUrl } });
    const out = await drain(await c.chatStream({ model: 'nsed:fast', messages: [{ role: 'user', content: 'q' }] }));
    expect(out.events).toEqual([
      { type: 'text', text: 'via proxy', index: 1 },
      { type: 'end', finish_reason: null, index: 2 },
    ]);
    await c.close();
  });

  it('prefers lowercase http_proxy over HTTP_PROXY', async () => {
    const before = proxy.seen.length;
    const c = createClient({
      baseUrl: REMOTE,
      idleTimeoutMs: 2_000,
      env: { HTTP_PROXY: 'http://127.0.0.1:9', http_proxy: proxyUrl },
    });
    await c.policies();
    expect(proxy.seen.length - before).toBe(1);
    await c.close();
  });

  it('bypasses the proxy for hosts in NO_PROXY', async () => {
    const before = proxy.seen.length;
    const c = createClient({
      baseUrl: REMOTE,
      idleTimeoutMs: 2_000,
      env: { HTTP_PROXY: proxyUrl, NO_PROXY: 'localhost,.invalid' },
    });
    const err = await failure(c.policies());
    expect(err).toMatchObject({ code: 'network', exitCode: 6 });
    expect(err.message).toMatch(/^cannot reach the orchestrator at orchestrator\.invalid:80: host not found/);
    expect(proxy.seen.length).toBe(before);
    await c.close();
  });

  it('always goes direct to a loopback orchestrator', async () => {
    const before = proxy.seen.length;
    const c = createClient({
      baseUrl: direct.url,
      idleTimeoutMs: 2_000,
      env: { HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl },
    });
    await c.policies();
    expect(direct.seen).toHaveLength(1);
    expect(proxy.seen.length).toBe(before);
    await c.close();
  });

  it('a proxy that accepts the connection and never answers CONNECT fails within the connect timeout', async () => {
    const held: Socket[] = [];
    const blackHole = createNetServer((sock) => {
      held.push(sock);
      sock.on('data', () => undefined);
    });
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', () => resolve()));
    const port = (blackHole.address() as AddressInfo).port;
    const pauses: number[] = [];
    const c = createClient({
      baseUrl: 'https://orchestrator.example.com',
      idleTimeoutMs: 30_000,
      connectTimeoutMs: 300,
      env: { HTTPS_PROXY: `http://127.0.0.1:${port}` },
      // The back-off between tries is recorded, not waited: each try still waits its connect timeout.
      sleep: (ms) => {
        pauses.push(ms);
        return Promise.resolve();
      },
    });
    const err = await failure(c.policies());
    expect(err).toMatchObject({ code: 'network', exitCode: 6 });
    expect(err.message).toBe(
      'cannot reach the orchestrator at orchestrator.example.com:443: the proxy did not open a tunnel within 0.3 s (connect timeout)',
    );
    expect(pauses).toEqual([200, 400]);
    await c.close();
    for (const sock of held) sock.destroy();
    await new Promise<void>((resolve) => blackHole.close(() => resolve()));
  });

  it('recognises loopback hosts', () => {
    for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]', '[::ffff:7f00:1]'])
      expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['example.com', '10.0.0.1', '[::2]', 'localhost.example.com', '128.0.0.1'])
      expect(isLoopbackHost(h)).toBe(false);
  });

  it('reports a 407 plainly and never prints the proxy password', async () => {
    const secret = 'pr0xy-s3cret';
    const lines: string[] = [];
    const auth = await startServer((_q, res) => {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="corp"' });
      res.end();
    });
    const c = createClient({
      baseUrl: REMOTE,
      idleTimeoutMs: 2_000,
      env: { HTTP_PROXY: auth.url.replace('http://', `http://user:${secret}@`), NSED_DEBUG: '1' },
      debug: (l) => lines.push(l),
    });
    const err = await failure(c.policies());
    expect(err).toMatchObject({ code: 'network', exitCode: 6 });
    expect(err.message).toContain('(407)');
    expect(auth.seen[0]?.headers['proxy-authorization']).toBe(
      `Basic ${Buffer.from(`user:${secret}`).toString('base64')}`,
    );
    expect(JSON.stringify(err) + lines.join('\n')).not.toContain(secret);
    await c.close();
    await auth.close();
  });
});

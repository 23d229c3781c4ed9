import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { serveSim } from '../../src/sim/serve.js';
import { startSim } from '../../src/sim/server.js';
import { until } from '../harness/sse.js';

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (b: Buffer) => {
    text += b.toString('utf8');
  });
  return { stream, text: () => text };
}

describe('serveSim', () => {
  it('prints the listening line first, logs one line per request, and stops cleanly on abort', async () => {
    const stdout = capture();
    const stderr = capture();
    const ac = new AbortController();
    const served = serveSim(
      { port: 0, roundMs: 2, token: 'secret-token' },
      { stdout: stdout.stream, stderr: stderr.stream },
      ac.signal,
    );
    await until(() => stdout.text().includes('\n'));
    const first = stdout.text().split('\n')[0] ?? '';
    expect(first).toMatch(/^nsed sim listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = first.replace('nsed sim listening on ', '');
    await (await fetch(`${url}/health`)).arrayBuffer();
    await (await fetch(`${url}/policies`)).arrayBuffer();
    await until(() => stderr.text().split('\n').length >= 3);
    const lines = stderr.text().trim().split('\n');
    expect(lines[0]).toMatch(/^GET \/health 200 \d+ms$/);
    expect(lines[1]).toMatch(/^GET \/policies 401 \d+ms$/);
    expect(stderr.text() + stdout.text()).not.toContain('secret-token');
    ac.abort();
    await served;
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });
});

describe('close()', () => {
  it('ends open streams and timers promptly', async () => {
    // Nothing but close() can end this stream: no phase or keep-alive comes within any test's time.
    const s = await startSim({ port: 0, roundMs: 600_000, keepaliveMs: 600_000 });
    const res = await fetch(`${s.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'nsed:*', stream: true, messages: [{ role: 'user', content: 'q' }] }),
    });
    const reading = res.text().then(
      () => 'ended',
      () => 'reset',
    );
    await s.close();
    expect(await reading).toMatch(/ended|reset/);
  });
});

describe('the test helper', () => {
  let leftOpen = '';
  it('starts a simulator for a test', async () => {
    const { sim } = await import('../harness/sse.js');
    leftOpen = (await sim()).url;
    expect((await fetch(`${leftOpen}/health`)).status).toBe(200);
  });

  it('has closed it by the next test', async () => {
    await expect(fetch(`${leftOpen}/health`)).rejects.toThrow();
  });
});

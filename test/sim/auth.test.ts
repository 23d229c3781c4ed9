import { describe, expect, it } from 'vitest';
import { ask, sim } from '../harness/sse.js';

const TOKEN = 'canary-token-5f1e';

const routes: Array<[string, string, unknown]> = [
  ['POST', '/v1/chat/completions', ask('hi', { model: 'nsed:passthrough' })],
  ['GET', '/v1/models', undefined],
  ['POST', '/deliberation', { room_id: 'r', user_query: 'q', agent_names: ['A', 'B'] }],
  ['GET', '/deliberations', undefined],
  ['GET', '/deliberation/r/result', undefined],
  ['GET', '/deliberation/r/details', undefined],
  ['POST', '/deliberation/r/inject', { message: 'x' }],
  ['POST', '/deliberation/r/cancel', undefined],
  ['POST', '/deliberation/r/resume', undefined],
  ['GET', '/policies', undefined],
  ['GET', '/agents', undefined],
  ['GET', '/no/such/route', undefined],
];

async function call(url: string, method: string, body: unknown, auth?: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (auth !== undefined) headers.authorization = auth;
  return fetch(url, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

describe('bearer auth (reliability #47)', () => {
  it.each(routes)('%s %s answers 401 {"error":"unauthorized"} without the token', async (method, path, body) => {
    const s = await sim({ token: TOKEN });
    const res = await call(`${s.url}${path}`, method, body);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'unauthorized' });
  });

  it.each([['Bearer wrong'], [`bearer ${TOKEN}`], [TOKEN], [`Bearer ${TOKEN}x`], ['Bearer ']])(
    'refuses the authorization header %j',
    async (auth) => {
      const s = await sim({ token: TOKEN });
      expect((await call(`${s.url}/policies`, 'GET', undefined, auth)).status).toBe(401);
    },
  );

  it('accepts the right token on every route and never asks for one on /health', async () => {
    const s = await sim({ token: TOKEN });
    expect((await fetch(`${s.url}/health`)).status).toBe(200);
    for (const [method, path, body] of routes.slice(0, 4)) {
      const res = await call(`${s.url}${path}`, method, body, `Bearer ${TOKEN}`);
      expect([200, 202], `${method} ${path}`).toContain(res.status);
      await res.arrayBuffer();
    }
  });

  it('keeps the token out of the request records', async () => {
    const s = await sim({ token: TOKEN });
    await (await call(`${s.url}/policies`, 'GET', undefined, `Bearer ${TOKEN}`)).arrayBuffer();
    await (await call(`${s.url}/policies`, 'GET', undefined, 'Bearer nope')).arrayBuffer();
    expect(s.requests).toHaveLength(2);
    expect(s.requests[0]?.headers.authorization).toBeUndefined();
    expect(JSON.stringify(s.requests)).not.toContain(TOKEN);
  });

  it('needs no token when none is configured', async () => {
    const s = await sim();
    expect((await call(`${s.url}/policies`, 'GET', undefined)).status).toBe(200);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type NsedClient } from '../../src/api/client.js';
import { parseRetryAfter } from '../../src/api/http-errors.js';
import { failure, startServer, type ScriptedServer } from '../harness/scripted-server.js';

/** C9: the status table of http-errors.ts, over a real socket, with a canary token throughout (C15). */

const CANARY = 'nsed-canary-7d3f0b2a9c';
const NOW = Date.parse('2026-01-01T00:00:00Z');
const request = { model: 'nsed:nope', messages: [{ role: 'user' as const, content: 'q' }] };

let server: ScriptedServer;
let client: NsedClient;

beforeAll(async () => {
  server = await startServer();
  // A pinned clock: a Retry-After given as a date is read against it, not against a moving now.
  client = createClient({ baseUrl: server.url, token: CANARY, idleTimeoutMs: 5_000, now: () => NOW });
});

afterAll(async () => {
  await client.close();
  await server.close();
});

function answer(status: number, body: string, headers: Record<string, string> = {}): void {
  server.route = (_q, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };
}

const table: Array<[number, string, number, RegExp]> = [
  [
    301,
    'server',
    5,
    /^the orchestrator redirected to http:\/\/127\.0\.0\.1:\d+\/elsewhere \(301\); point --url at the final address$/,
  ],
  [302, 'server', 5, /redirected to .*\(302\)/],
  [307, 'server', 5, /redirected to .*\(307\)/],
  [400, 'usage', 2, /^the orchestrator rejected the request \(400\): invalid input$/],
  [401, 'auth', 4, /^authentication failed \(401\): check NSED_TOKEN or --token-file/],
  [403, 'auth', 4, /^authentication failed \(403\)/],
  [404, 'not_found', 3, /^GET \/policies: not found on the orchestrator \(404\): invalid input$/],
  [409, 'conflict', 7, /\(409\): invalid input$/],
  [410, 'not_found', 3, /gone on the orchestrator \(410\)/],
  [413, 'usage', 2, /^the request is too large \(413\)/],
  [422, 'usage', 2, /^the orchestrator rejected the request \(422\)/],
  [429, 'server', 5, /^the orchestrator is rate limiting requests \(429\)/],
  [500, 'server', 5, /^the orchestrator failed \(500\): invalid input$/],
  [502, 'server', 5, /\(502\)/],
  [503, 'server', 5, /\(503\)/],
  [504, 'server', 5, /\(504\)/],
];

describe('status table', () => {
  it('parses a 200 answer', async () => {
    answer(200, JSON.stringify([{ policy_id: 'a'.repeat(64), name: 'fast', tags: ['fast'] }]));
    const policies = await client.policies();
    expect(policies).toEqual([
      { policy_id: 'a'.repeat(64), name: 'fast', tags: ['fast'], max_rounds: 3, effort: 0.85, is_role_based: false },
    ]);
  });

  for (const [status, code, exit, message] of table) {
    it(`maps ${status} to ${code} (exit ${exit})`, async () => {
      answer(status, '{"error":"invalid input"}', { location: '/elsewhere?token=x#frag' });
      const err = await failure(client.policies());
      expect(err).toMatchObject({ code, exitCode: exit, status });
      expect(err.message).toMatch(message);
    });
  }

  it('never follows a redirect: the target is not requested (reliability #49)', async () => {
    const before = server.seen.length;
    answer(307, '', { location: '/v2/policies' });
    await failure(client.policies());
    expect(server.seen.length - before).toBe(1);
  });

  it('turns model_not_found into an unknown-policy error naming the model', async () => {
    answer(
      404,
      '{"error":{"message":"The model nsed:nope does not exist","type":"invalid_request_error","code":"model_not_found"}}',
    );
    const err = await failure(client.chatStream(request));
    expect(err).toMatchObject({
      code: 'not_found',
      exitCode: 3,
      status: 404,
      message: "unknown policy 'nsed:nope' (404)",
    });
    expect(err.hint).toContain('nsed policies');
  });

  it('names the job in a not-found error on a job path', async () => {
    answer(404, 'not found');
    const err = await failure(client.result('job-1'));
    expect(err.message).toBe("job 'job-1': not found on the orchestrator (404): not found");
  });

  it('says what a 409 means for an inject', async () => {
    server.route = (_q, res) => {
      res.writeHead(409, { 'content-type': 'text/plain' });
      res.end('job not in running state');
    };
    const err = await failure(client.inject('job-1', 'focus'));
    expect(err).toMatchObject({
      code: 'conflict',
      exitCode: 7,
      message: "job 'job-1' is not running (409): job not in running state",
    });
  });
});

describe('Retry-After (reliability #45)', () => {
  const cases: Array<[string, Record<string, string>, number | undefined, RegExp | undefined]> = [
    ['seconds', { 'retry-after': '7' }, 7, /it asked to wait 7 s$/],
    ['an HTTP date', { 'retry-after': 'Thu, 01 Jan 2026 00:00:20 GMT' }, undefined, /it asked to wait 20 s$/],
    [
      'retry-after-ms, preferred over Retry-After',
      { 'retry-after-ms': '1500', 'retry-after': '30' },
      1.5,
      /it asked to wait 1\.5 s$/,
    ],
    ['a negative value, ignored', { 'retry-after': '-5' }, undefined, undefined],
    ['a day, reported but not honoured', { 'retry-after': '86400' }, undefined, /it asked to wait 86400 s$/],
  ];
  for (const [name, headers, honoured, message] of cases) {
    it(`reads ${name}`, async () => {
      answer(429, '', headers);
      const err = await failure(client.policies());
      if (name === 'an HTTP date') expect(err.status).toBe(429);
      else expect(err.retryAfterS).toBe(honoured);
      if (message === undefined) expect(err.message).toBe('the orchestrator is rate limiting requests (429)');
      else expect(err.message).toMatch(message);
    });
  }

  it('honours an HTTP date within the cap', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }, now)).toEqual({
      asked: 30,
      honoured: 30,
    });
    expect(parseRetryAfter({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }, now)).toEqual({});
    expect(parseRetryAfter({ 'retry-after': 'soon' }, now)).toEqual({});
  });

  it('carries Retry-After on a 503 too', async () => {
    answer(503, 'deploying', { 'retry-after': '2' });
    const err = await failure(client.policies());
    expect(err).toMatchObject({ code: 'server', retryAfterS: 2 });
  });
});

describe('hostile error bodies (reliability #74, #78, #81)', () => {
  it('truncates, strips escapes and controls, and redacts the token', async () => {
    const hostile = `\u001b[2J\u001b]8;;http://evil\u0007click\u001b]8;;\u0007 your token ${CANARY} is bad\r\nBearer ${CANARY}\u202e ${'A'.repeat(5_000)}`;
    answer(500, JSON.stringify({ error: { message: hostile } }));
    const err = await failure(client.policies());
    expect(err.message).not.toContain(CANARY);
    // eslint-disable-next-line no-control-regex
    expect(err.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(err.message.startsWith('the orchestrator failed (500): click your token *** is bad Bearer *** AAA')).toBe(
      true,
    );
    expect(err.message.length).toBeLessThanOrEqual('the orchestrator failed (500): '.length + 200);
    expect(err.message.endsWith('…')).toBe(true);
  });

  it('reads at most 64 KiB of a huge error body', async () => {
    answer(502, `<html>${'x'.repeat(10 * 1024 * 1024)}</html>`);
    const err = await failure(client.policies());
    expect(err).toMatchObject({ code: 'server', status: 502 });
    expect(err.message.length).toBeLessThan(260);
  });

  it('never shows the canary token in an auth error, whatever the server echoes', async () => {
    answer(401, JSON.stringify({ error: `token ${CANARY} rejected` }));
    const err = await failure(client.chatStream(request));
    expect(JSON.stringify(err)).not.toContain(CANARY);
    expect(err.message).toBe(
      'authentication failed (401): check NSED_TOKEN or --token-file (the orchestrator said: token *** rejected)',
    );
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, encodeSegment, type NsedClient } from '../../src/api/client.js';
import { drain, failure, sseHead, startServer, type ScriptedServer } from '../harness/scripted-server.js';

const TOKEN = 'nsed-canary-req-91c2e7';
const request = { model: 'nsed:deep', messages: [{ role: 'user' as const, content: 'Design a cache' }] };

let server: ScriptedServer;
let client: NsedClient;
const debug: string[] = [];

beforeAll(async () => {
  server = await startServer();
  client = createClient({
    baseUrl: `${server.url}/`,
    token: TOKEN,
    idleTimeoutMs: 5_000,
    env: { NSED_DEBUG: '1' },
    debug: (l) => debug.push(l),
  });
});

afterAll(async () => {
  await client.close();
  await server.close();
});

function json(status: number, body: unknown, headers: Record<string, string> = {}): void {
  server.route = (_q, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
}

describe('what the client sends', () => {
  it('sends Authorization, x-opencode-session and stream: true on a chat stream', async () => {
    server.route = (_q, res) => {
      sseHead(res);
      res.end('data: [DONE]\n\n');
    };
    await drain(await client.chatStream(request, { threadKey: 'ses_abc', headers: { 'x-nsed-sim-fault': 'none' } }));
    const seen = server.seen.at(-1);
    expect(seen?.method).toBe('POST');
    expect(seen?.url).toBe('/v1/chat/completions');
    expect(seen?.headers['authorization']).toBe(`Bearer ${TOKEN}`);
    expect(seen?.headers['x-opencode-session']).toBe('ses_abc');
    expect(seen?.headers['x-nsed-sim-fault']).toBe('none');
    expect(seen?.headers['accept']).toBe('text/event-stream');
    expect(JSON.parse(seen?.body ?? '')).toEqual({ ...request, stream: true });
  });

  it('percent-encodes job ids in paths, dots and slashes included (reliability #77)', async () => {
    json(200, { job_id: 'x', status: 'running', result: null });
    await client.result('../a b/é.x');
    expect(server.seen.at(-1)?.url).toBe('/deliberation/%2E%2E%2Fa%20b%2F%C3%A9%2Ex/result');
    expect(encodeSegment('thread-ab_12-Z')).toBe('thread-ab_12-Z');
  });

  it('refuses an empty job id before sending anything', async () => {
    const before = server.seen.length;
    expect(await failure(client.result(''))).toMatchObject({ code: 'usage', exitCode: 2 });
    expect(server.seen.length).toBe(before);
  });

  it('logs method and URL in debug mode, never the token (reliability #74)', () => {
    expect(debug.some((l) => l.startsWith('POST http://127.0.0.1:'))).toBe(true);
    expect(debug.join('\n')).not.toContain(TOKEN);
  });

  it('refuses a URL carrying credentials, and a token with a newline', () => {
    expect(() => createClient({ baseUrl: 'http://u:p@127.0.0.1:1', idleTimeoutMs: 1 })).toThrow(
      /must not carry credentials/,
    );
    expect(() => createClient({ baseUrl: 'ftp://127.0.0.1', idleTimeoutMs: 1 })).toThrow(/unsupported URL scheme/);
    expect(() => createClient({ baseUrl: 'http://127.0.0.1:1', token: 'abc\r\nx-evil: 1', idleTimeoutMs: 1 })).toThrow(
      /control or non-ASCII/,
    );
  });
});

describe('what the client parses', () => {
  it('parses a job result, defaulting a missing result to null', async () => {
    json(200, { job_id: 'j1', status: 'running: round 2' });
    expect(await client.result('j1')).toEqual({ job_id: 'j1', status: 'running: round 2', result: null });
    json(200, { job_id: 'j1', status: 'completed', result: 'The best proposal' });
    expect(await client.result('j1')).toEqual({ job_id: 'j1', status: 'completed', result: 'The best proposal' });
  });

  it('sends an injection and parses its acknowledgement', async () => {
    json(202, { sequence: 3, injected_at_round: 2 });
    expect(await client.inject('j1', 'Focus on memory safety')).toEqual({ sequence: 3, injected_at_round: 2 });
    expect(server.seen.at(-1)).toMatchObject({ method: 'POST', url: '/deliberation/j1/inject' });
    expect(JSON.parse(server.seen.at(-1)?.body ?? '')).toEqual({ message: 'Focus on memory safety' });
  });

  it('cancels with any 2xx and no body', async () => {
    server.route = (_q, res) => res.writeHead(204).end();
    await expect(client.cancel('j1')).resolves.toBeUndefined();
    expect(server.seen.at(-1)).toMatchObject({ method: 'POST', url: '/deliberation/j1/cancel' });
  });

  it('submits a deliberation and returns its job id', async () => {
    json(202, { job_id: 'room_0123456789abcdef' });
    const body = {
      room_id: 'room_0123456789abcdef',
      conversation_id: 'c1',
      user_query: 'q',
      agent_names: ['a', 'b'],
      deliberation_rounds: 2,
    };
    expect(await client.submit(body)).toEqual({ job_id: 'room_0123456789abcdef' });
    expect(JSON.parse(server.seen.at(-1)?.body ?? '')).toEqual(body);
  });

  it('names the room when a submit conflicts', async () => {
    json(409, { error: 'job already running' });
    const err = await failure(client.submit({ room_id: 'r1', user_query: 'q' }));
    expect(err.message).toBe("room 'r1' already has a running deliberation (409): job already running");
  });

  it('parses policies with the reference defaults and skips entries without an id', async () => {
    json(200, [
      {
        policy_id: 'p1',
        name: 'deep',
        tags: ['deep', 3],
        rounds: 5,
        convergence_threshold: 0.6,
        is_role_based: true,
        mode: 'deliberation',
        sla: { job_timeout_secs: 1200 },
      },
      { name: 'no id' },
      'junk',
    ]);
    expect(await client.policies()).toEqual([
      {
        policy_id: 'p1',
        name: 'deep',
        tags: ['deep'],
        max_rounds: 5,
        effort: 0.6,
        is_role_based: true,
        mode: 'deliberation',
        sla: { job_timeout_secs: 1200 },
      },
    ]);
  });

  it('reports a 200 answer that is not JSON as unreadable, with a short excerpt', async () => {
    server.route = (_q, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
    const err = await failure(client.policies());
    expect(err).toMatchObject({
      code: 'server',
      exitCode: 5,
      message: 'the orchestrator sent an unreadable answer to GET /policies: <html>maintenance</html>',
    });
  });

  it('runs a non-streaming chat and takes the job id from the header', async () => {
    const completion = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'nsed:deep',
      choices: [{ index: 0, message: { role: 'assistant', content: 'The answer is 4.' }, finish_reason: 'stop' }],
    };
    json(200, completion, { 'x-nsed-session-id': 'room-7145388f' });
    const out = await client.chat(request, { threadKey: 'ses_abc' });
    expect(out).toEqual({ completion, jobId: 'room-7145388f' });
    expect(JSON.parse(server.seen.at(-1)?.body ?? '')).toMatchObject({ stream: false });
  });

  it('falls back to nsed_metadata.session_id for the job id of a non-streaming chat', async () => {
    json(200, {
      choices: [{ index: 0, message: { content: 'hi' }, finish_reason: 'weird' }],
      nsed_metadata: { mode: 'moderator', session_id: 's9' },
    });
    const out = await client.chat(request);
    expect(out.jobId).toBe('s9');
    expect(out.completion.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: 'hi' },
      finish_reason: 'stop',
    });
  });

  it('resumes a job as a stream and maps its statuses (reliability #32, #38)', async () => {
    server.route = (_q, res) => {
      sseHead(res, { 'x-nsed-session-id': 'j1' });
      res.end('data: [DONE]\n\n');
    };
    const stream = await client.resume('j1');
    expect(stream.jobId).toBe('j1');
    expect((await drain(stream)).events).toEqual([{ type: 'end', finish_reason: null, index: 1 }]);
    expect(server.seen.at(-1)).toMatchObject({ method: 'POST', url: '/deliberation/j1/resume' });
    json(404, { error: 'not found' });
    expect(await failure(client.resume('j1'))).toMatchObject({ code: 'not_found', exitCode: 3 });
    server.route = (_q, res) => res.writeHead(204).end();
    expect(await failure(client.resume('j1'))).toMatchObject({
      code: 'conflict',
      exitCode: 7,
      status: 204,
      message: "job 'j1' has no live deliberation to resume (204)",
    });
  });
});

// `nsed mcp --http` in-process with an injected clock: what a request without a session may
// allocate, how many sessions live at once, and when an idle one is let go. Counted by the
// server's own tables (its live sessions, the hub's connected MCP servers), not by memory.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock, Context } from '../../src/run/context.js';
import { HTTP_SESSION_IDLE_MS, HttpSessions, MAX_HTTP_SESSIONS } from '../../src/mcp/http-sessions.js';
import { Runner } from '../../src/mcp/runner.js';
import { httpListen, serveHttp, type HttpServing } from '../../src/mcp/serve.js';
import { McpHub } from '../../src/mcp/server.js';
import { contextRig, type ContextRig } from '../harness/context-rig.js';

const TOKEN = 'http-sessions-token-0123456789';
const PROTOCOL = '2025-06-18';

/** A clock the test moves by hand; sleeps are the real ones (the server's own waits do not matter here). */
function handClock(base: Clock): Clock & { advance(ms: number): void } {
  let now = Date.parse('2026-01-01T00:00:00Z');
  return { now: () => new Date(now), sleep: (ms, s) => base.sleep(ms, s), advance: (ms) => void (now += ms) };
}

describe('nsed mcp --http: sessions bounded in number and idle time (reliability #287)', () => {
  let rig: ContextRig;
  let clock: ReturnType<typeof handClock>;
  let hub: McpHub;
  let http: HttpServing;
  beforeAll(async () => {
    rig = await contextRig();
    clock = handClock(rig.ctx.clock);
    const ctx: Context = { ...rig.ctx, clock };
    hub = new McpHub(ctx, (log) => new Runner(ctx, log), tmpdir());
    http = await serveHttp(ctx, hub, httpListen('127.0.0.1', 0, TOKEN));
  });
  afterAll(async () => {
    await hub.close();
    await http.stop();
    await rig.close();
  });

  const post = (body: unknown, session?: string): Promise<Response> =>
    fetch(http.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL,
        ...(session === undefined ? {} : { 'mcp-session-id': session }),
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const initialize = async (): Promise<string> => {
    const r = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await r.text();
    expect(r.status).toBe(200);
    return String(r.headers.get('mcp-session-id'));
  };
  const ping = async (session?: string): Promise<number> => {
    const r = await post({ jsonrpc: '2.0', id: 2, method: 'ping' }, session);
    await r.text();
    return r.status;
  };
  /** Ends every session, so each test starts from none. */
  const reset = async (): Promise<void> => {
    await http.sessions.closeAll();
    expect(hub.connected).toBe(0);
  };

  it('refuses a request without a session that is not an initialize, allocating nothing, however many come', async () => {
    await reset();
    for (let i = 0; i < 200; i++) {
      const r = await post({ jsonrpc: '2.0', id: i, method: 'ping' });
      expect(r.status).toBe(400);
      expect(await r.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: expect.stringMatching(/^Bad Request: no MCP session; send initialize first/) },
      });
    }
    const get = await fetch(http.url, { headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream' } });
    expect(get.status).toBe(400);
    await get.text();
    const bad = await post('{"jsonrpc":');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32700);
    expect(http.sessions.size).toBe(0);
    expect(hub.connected).toBe(0);
    // An initialize still makes a session, and the SDK's client works over it.
    const client = new Client({ name: 'nsed-http-host', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(http.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('deliberate');
    expect(http.sessions.size).toBe(1);
    expect(hub.connected).toBe(1);
    await client.close();
  });

  it('an initialize the transport refuses (no text/event-stream in Accept) leaves no server behind', async () => {
    await reset();
    const r = await fetch(http.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    expect(r.status).toBe(406);
    await r.text();
    expect(http.sessions.size).toBe(0);
    expect(hub.connected).toBe(0);
  });

  it(`keeps at most ${MAX_HTTP_SESSIONS} sessions: one more closes the one idle longest`, async () => {
    await reset();
    const ids: string[] = [];
    for (let i = 0; i < MAX_HTTP_SESSIONS; i++) {
      ids.push(await initialize());
      clock.advance(1000);
    }
    expect(http.sessions.size).toBe(MAX_HTTP_SESSIONS);
    // The first is used again: the second is now the one idle longest.
    expect(await ping(ids[0])).toBe(200);
    clock.advance(1000);
    const extra = await initialize();
    expect(http.sessions.size).toBe(MAX_HTTP_SESSIONS);
    expect(hub.connected).toBe(MAX_HTTP_SESSIONS);
    expect(await ping(ids[1])).toBe(404);
    expect(await ping(ids[0])).toBe(200);
    expect(await ping(extra)).toBe(200);
  });

  it('closes a session idle for an hour at the next request; one with a request in flight is not idle', async () => {
    await reset();
    const idle = await initialize();
    const listening = await initialize();
    // A host's listening GET stream: a request in flight for as long as it stays open.
    const stop = new AbortController();
    const stream = await fetch(http.url, {
      headers: {
        authorization: `Bearer ${TOKEN}`,
        accept: 'text/event-stream',
        'mcp-session-id': listening,
        'mcp-protocol-version': PROTOCOL,
      },
      signal: stop.signal,
    });
    expect(stream.status).toBe(200);
    clock.advance(HTTP_SESSION_IDLE_MS - 1);
    expect(await ping(idle)).toBe(200);
    clock.advance(HTTP_SESSION_IDLE_MS);
    expect(await ping(idle)).toBe(404);
    expect(await ping(listening)).toBe(200);
    expect(http.sessions.size).toBe(1);
    expect(hub.connected).toBe(1);
    // Its stream closed, the listening session idles from then on, and expires in its turn: each
    // ping is a round trip, time enough for the server to see the stream close; the loop is bounded.
    stop.abort();
    await stream.body?.cancel().catch(() => undefined);
    let status = 200;
    for (let tries = 0; tries < 50 && status !== 404; tries++) {
      clock.advance(HTTP_SESSION_IDLE_MS);
      status = await ping(listening);
    }
    expect(status).toBe(404);
    expect(http.sessions.size).toBe(0);
    expect(hub.connected).toBe(0);
  });
});

describe('the session table alone', () => {
  /** A response whose close the test decides. */
  const response = (): ServerResponse & EventEmitter => new EventEmitter() as ServerResponse & EventEmitter;
  const closable = (): { close(): Promise<void>; closed: boolean } => {
    const c = {
      closed: false,
      close: async () => {
        c.closed = true;
      },
    };
    return c;
  };

  it('has no room when every session has a request in flight, and closes none of them', async () => {
    let now = 0;
    const table = new HttpSessions<ReturnType<typeof closable>>(() => now, { max: 2, idleMs: 10 });
    const a = closable();
    const b = closable();
    table.add('a', a);
    table.add('b', b);
    const ra = response();
    table.use('a', ra);
    table.use('b', response());
    now = 1000;
    expect(await table.makeRoom()).toBe(false);
    expect([a.closed, b.closed, table.size]).toEqual([false, false, 2]);
    // Once a's request ends, a idles from then on, and is let go for the next.
    ra.emit('close');
    expect(await table.makeRoom()).toBe(true);
    expect([a.closed, b.closed, table.size]).toEqual([true, false, 1]);
  });
});

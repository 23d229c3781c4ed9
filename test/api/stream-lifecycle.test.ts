import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/events.js';
import { chunk } from './fixtures.js';
import { TEXT, ev, request, useScriptedClient } from './scripted-client.js';
import { drain, failure, sleep, sseHead } from './helpers.js';

const setup = useScriptedClient();

describe('stream lifecycle', () => {
  it('reports a reset mid-body as a network drop the caller can resume (reliability #27)', async () => {
    const { client } = await setup(async (_q, res) => {
      sseHead(res);
      res.write(TEXT);
      await sleep(30);
      res.destroy();
    });
    const out = await drain(await client.chatStream(request));
    expect(out.events).toEqual([{ type: 'text', text: 'partial', index: 1 }]);
    expect(out.error).toMatchObject({ code: 'network', exitCode: 6, drop: 'reset', message: 'the connection was reset mid-stream' });
  });

  it('reports a clean EOF without [DONE] as an eof drop (reliability #26)', async () => {
    const { client } = await setup((_q, res) => {
      sseHead(res);
      res.end(TEXT + ev(chunk({}, 'stop')));
    });
    const out = await drain(await client.chatStream(request));
    expect(out.error).toMatchObject({ code: 'network', exitCode: 6, drop: 'eof', message: 'the stream ended before the deliberation finished (no [DONE])' });
  });

  it('fires the idle timeout within [idle, idle + 1 s] of the last byte (reliability #28, C7)', async () => {
    const { client } = await setup((_q, res) => {
      sseHead(res);
      res.write(TEXT);
    }, { idleTimeoutMs: 400 });
    const stream = await client.chatStream(request);
    let lastByteAt = 0;
    const out: StreamEvent[] = [];
    const err = await failure(
      (async () => {
        for await (const e of stream) {
          lastByteAt = Date.now();
          out.push(e);
        }
      })(),
    );
    const silent = Date.now() - lastByteAt;
    expect(out).toHaveLength(1);
    expect(err).toMatchObject({ code: 'timeout', exitCode: 124, drop: 'idle', message: 'no data from the orchestrator for 0.4 s (--idle-timeout)' });
    expect(silent).toBeGreaterThanOrEqual(400);
    expect(silent).toBeLessThan(1400);
  });

  it('does not time out while keep-alive comments arrive (reliability #6, #29)', async () => {
    const { client } = await setup(async (_q, res) => {
      sseHead(res);
      for (let i = 0; i < 8; i++) {
        res.write(': keep-alive\n\n');
        await sleep(100);
      }
      res.end(TEXT + ev('[DONE]'));
    }, { idleTimeoutMs: 300 });
    const out = await drain(await client.chatStream(request));
    expect(out.error).toBeUndefined();
    expect(out.events.at(-1)).toEqual({ type: 'end', finish_reason: 'stop', index: 2 });
  });

  it('does not count time the consumer spends on an event as server silence', async () => {
    const { client } = await setup((_q, res) => {
      sseHead(res);
      res.write(TEXT + TEXT + ev('[DONE]'));
    }, { idleTimeoutMs: 200 });
    const stream = await client.chatStream(request);
    const seen: string[] = [];
    for await (const e of stream) {
      seen.push(e.type);
      await sleep(350);
    }
    expect(seen).toEqual(['text', 'text', 'end']);
  });

  it('stops at the turn deadline with a timeout and no drop (reliability #52)', async () => {
    const { client } = await setup(async (_q, res) => {
      sseHead(res);
      for (let i = 0; i < 30 && !res.destroyed; i++) {
        res.write(': keep-alive\n\n');
        await sleep(50);
      }
    }, { deadline: Date.now() + 400, idleTimeoutMs: 5_000 });
    const started = Date.now();
    const out = await drain(await client.chatStream(request));
    expect(out.error).toMatchObject({ code: 'timeout', exitCode: 124, drop: undefined });
    expect(out.error?.message).toContain('--timeout');
    expect(Date.now() - started).toBeLessThan(1_400);
  });

  it('sends nothing when the deadline has already passed', async () => {
    const { server, client } = await setup((_q, res) => res.end(), { deadline: Date.now() - 1 });
    const err = await failure(client.chatStream(request));
    expect(err).toMatchObject({ code: 'timeout', exitCode: 124 });
    expect(server.seen).toHaveLength(0);
  });

  it('names the headers timeout when no response arrives (reliability #52)', async () => {
    const { client } = await setup(() => undefined, { headersTimeoutMs: 200 });
    const err = await failure(client.chatStream(request));
    expect(err).toMatchObject({ code: 'timeout', exitCode: 124 });
    expect(err.message).toContain('headers timeout');
  });

  it('closes the connection as soon as [DONE] arrives, even if the server keeps it open (reliability #18)', async () => {
    const { server, client } = await setup((_q, res) => {
      sseHead(res);
      res.write(TEXT + ev('[DONE]'));
    });
    const out = await drain(await client.chatStream(request));
    expect(out.events.map((e) => e.type)).toEqual(['text', 'end']);
    await server.socketsClosed();
  });

  it('aborts the request when the consumer breaks out of the loop', async () => {
    const { server, client } = await setup((_q, res) => {
      sseHead(res);
      res.write(TEXT);
    });
    for await (const e of await client.chatStream(request)) {
      expect(e.type).toBe('text');
      break;
    }
    await server.socketsClosed();
  });

  it('ends iteration quietly when abort() is called while waiting', async () => {
    const { server, client } = await setup((_q, res) => {
      sseHead(res);
      res.write(TEXT);
    });
    const stream = await client.chatStream(request);
    setTimeout(() => stream.abort(), 100);
    const out = await drain(stream);
    expect(out).toEqual({ events: [{ type: 'text', text: 'partial', index: 1 }] });
    await server.socketsClosed();
  });

  it("reports the caller's abort signal as an interruption", async () => {
    const { client } = await setup((_q, res) => {
      sseHead(res);
      res.write(TEXT);
    });
    const ac = new AbortController();
    const stream = await client.chatStream(request, { signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    const out = await drain(stream);
    expect(out.error).toMatchObject({ code: 'interrupted', exitCode: 130 });
  });

  it('takes the job id from the x-nsed-session-id header', async () => {
    const { client } = await setup((_q, res) => {
      sseHead(res, { 'x-nsed-session-id': 'oc-ses_1-17' });
      res.end(ev('[DONE]'));
    });
    const stream = await client.chatStream(request);
    expect(stream.jobId).toBe('oc-ses_1-17');
    await drain(stream);
  });

  it('refuses to be iterated twice', async () => {
    const { client } = await setup((_q, res) => {
      sseHead(res);
      res.end(ev('[DONE]'));
    });
    const stream = await client.chatStream(request);
    await drain(stream);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/only once/);
  });
});

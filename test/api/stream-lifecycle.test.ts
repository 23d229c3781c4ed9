import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/events/events.js';
import { chunk } from './fixtures.js';
import { TEXT, ev, request, useScriptedClient } from '../harness/scripted-client.js';
import { drain, failure, sleep, sseHead } from '../harness/scripted-server.js';

const setup = useScriptedClient();

describe('stream lifecycle', () => {
  it('reports a reset mid-body as a network drop the caller can resume (reliability #27)', async () => {
    // The reset comes once the caller has the text, not after a guessed pause: a reset that
    // overtakes unread bytes would discard them.
    let applied = (): void => undefined;
    const textApplied = new Promise<void>((resolve) => (applied = resolve));
    const { client } = await setup(async (_q, res) => {
      sseHead(res);
      res.write(TEXT);
      await textApplied;
      res.destroy();
    });
    const out = await drain(await client.chatStream(request), applied);
    expect(out.events).toEqual([{ type: 'text', text: 'partial', index: 1 }]);
    expect(out.error).toMatchObject({
      code: 'network',
      exitCode: 6,
      drop: 'reset',
      message: 'the connection was reset mid-stream',
    });
  });

  it('reports a clean EOF without [DONE] as an eof drop (reliability #26)', async () => {
    const { client } = await setup((_q, res) => {
      sseHead(res);
      res.end(TEXT + ev(chunk({}, 'length')));
    });
    const out = await drain(await client.chatStream(request));
    expect(out.error).toMatchObject({
      code: 'network',
      exitCode: 6,
      drop: 'eof',
      message: 'the stream ended before the deliberation finished (no [DONE])',
    });
  });

  // How soon after the idle time it fires is a speed figure, not a test: a loaded machine may
  // be late. That it never fires early, and fires at all, is tested here.
  it('fires the idle timeout no sooner than the idle time after the last byte (reliability #28, C7)', async () => {
    const { client } = await setup(
      (_q, res) => {
        sseHead(res);
        res.write(TEXT);
      },
      { idleTimeoutMs: 400 },
    );
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
    expect(err).toMatchObject({
      code: 'timeout',
      exitCode: 124,
      drop: 'idle',
      message: 'no data from the orchestrator for 0.4 s (--idle-timeout)',
    });
    expect(silent).toBeGreaterThanOrEqual(400);
  });

  it('does not time out while keep-alive comments arrive (reliability #6, #29)', async () => {
    // Silence is measured on the test's clock, which moves 40 ms per comment and nowhere else:
    // 15 comments are 0.6 s of it against a 0.1 s idle limit, so only counting each comment keeps
    // the stream alive, and a busy machine's pauses are no silence. After each comment the server
    // waits until the client's idle watch has looked at the clock again (once to start waiting,
    // once when its timer wakes), so the watch judges every gap, however slow the machine.
    const clock = testClock();
    const { client } = await setup(
      async (_q, res) => {
        sseHead(res);
        for (let i = 0; i < 15 && !res.destroyed; i++) {
          const looked = clock.reads(2);
          res.write(': keep-alive\n\n');
          clock.advance(40);
          await looked;
        }
        res.end(TEXT + ev('[DONE]'));
      },
      { idleTimeoutMs: 100, now: clock.now },
    );
    const out = await drain(await client.chatStream(request));
    expect(out.error).toBeUndefined();
    expect(out.events.at(-1)).toEqual({ type: 'end', finish_reason: null, index: 2 });
  });

  it('does not count time the consumer spends on an event as server silence', async () => {
    const { client } = await setup(
      (_q, res) => {
        sseHead(res);
        res.write(TEXT + TEXT + ev('[DONE]'));
      },
      { idleTimeoutMs: 200 },
    );
    const stream = await client.chatStream(request);
    const seen: string[] = [];
    for await (const e of stream) {
      seen.push(e.type);
      await sleep(350);
    }
    expect(seen).toEqual(['text', 'text', 'end']);
  });

  it('stops at the turn deadline with a timeout and no drop (reliability #52)', async () => {
    // The server never ends the stream: only the deadline can. It passes on the test's clock once
    // the stream is open, so what ends the turn does not depend on the machine's speed.
    const clock = testClock();
    const { client } = await setup(
      (_q, res) => {
        sseHead(res);
        res.write(': keep-alive\n\n');
      },
      { deadline: clock.now() + 400, idleTimeoutMs: 60_000, now: clock.now },
    );
    const stream = await client.chatStream(request);
    clock.advance(400);
    const out = await drain(stream);
    expect(out.error).toMatchObject({ code: 'timeout', exitCode: 124, drop: undefined });
    expect(out.error?.message).toContain('--timeout');
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
    // Aborted once the text arrived, while the loop waits for more.
    const out = await drain(stream, () => stream.abort());
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
    const out = await drain(stream, () => ac.abort());
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

/**
 * A clock that moves only when the test moves it; `reads(n)` resolves once the client has read it
 * n more times (how a test knows the client has looked at the time, without guessing a pause).
 */
function testClock(): { now: () => number; advance(ms: number): void; reads(n: number): Promise<void> } {
  let t = 1_700_000_000_000;
  const waiters: Array<{ left: number; resolve: () => void }> = [];
  return {
    now: () => {
      for (const w of [...waiters]) {
        if (--w.left > 0) continue;
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      return t;
    },
    advance: (ms) => {
      t += ms;
    },
    reads: (n) => new Promise<void>((resolve) => waiters.push({ left: n, resolve })),
  };
}

import { describe, expect, it } from 'vitest';
import type { EventStream, NsedClient } from '../../src/api/client.js';
import type { NsedEvent, StreamEvent } from '../../src/events/events.js';
import { NsedError } from '../../src/errors.js';
import { followStream } from '../../src/turn/follow/follow-stream.js';
import type { TurnDeps, TurnSpec } from '../../src/turn/run-turn.js';

/** A stream over scripted events that fails with a drop after `dropAfter` of them, if given. */
function scripted(events: StreamEvent[], dropAfter?: number): EventStream {
  async function* each() {
    for (const [i, e] of events.entries()) {
      if (dropAfter !== undefined && i === dropAfter) throw new NsedError('network', 'reset', { drop: 'reset' });
      yield e;
    }
    if (dropAfter !== undefined) throw new NsedError('network', 'eof', { drop: 'eof' });
  }
  // One event per batch: the follower must count across batch boundaries.
  async function* batches() {
    for await (const e of each()) yield [e];
  }
  return { jobId: 'job-1', abort: () => undefined, batches, [Symbol.asyncIterator]: each };
}

const text = (t: string, index: number): StreamEvent => ({ type: 'text', text: t, index });

function rig(streams: EventStream[]) {
  const shown: NsedEvent[] = [];
  const applied: StreamEvent[] = [];
  const calls: string[] = [];
  const client = {
    chatStream: async () => {
      calls.push('chat');
      return streams.shift() as EventStream;
    },
    resume: async () => {
      calls.push('resume');
      return streams.shift() as EventStream;
    },
  } as unknown as NsedClient;
  const deps = {
    ctx: { signal: new AbortController().signal, clock: { now: () => new Date(0), sleep: async () => undefined } },
    client,
    renderer: { onEvent: (e: NsedEvent) => shown.push(e), close: async () => undefined },
  } as unknown as TurnDeps;
  const spec = {
    start: { kind: 'chat', body: { model: 'nsed:*', messages: [] }, threadKey: 't' },
  } as unknown as TurnSpec;
  let job: string | undefined;
  const run = () =>
    followStream(
      deps,
      spec,
      (e) => applied.push(e),
      () => job,
      async (id) => {
        job = id;
      },
    );
  return { run, shown, applied, calls };
}

describe('followStream', () => {
  const full = [
    text('a', 1),
    text('bb', 2),
    text('ccc', 3),
    { type: 'end', finish_reason: 'stop', index: 4 } as StreamEvent,
  ];

  it('skips the replayed prefix after a drop, so every event is applied exactly once (reliability #33)', async () => {
    const r = rig([scripted(full, 2), scripted(full)]);
    await r.run();
    expect(r.applied.map((e) => (e.type === 'text' ? e.text : e.type))).toEqual(['a', 'bb', 'ccc', 'end']);
    expect(r.calls).toEqual(['chat', 'resume']);
    expect(r.shown).toEqual([expect.objectContaining({ type: 'reconnect', attempt: 1 })]);
  });

  it('says so when the replay differs from what was shown, instead of splicing silently (reliability #33, #37)', async () => {
    const other = [
      text('a', 1),
      text('XXXX', 2),
      text('ccc', 3),
      { type: 'end', finish_reason: 'stop', index: 4 } as StreamEvent,
    ];
    const r = rig([scripted(full, 2), scripted(other)]);
    await r.run();
    expect(r.shown.filter((e) => e.type === 'reconnect').map((e) => (e as { reason: string }).reason)).toEqual([
      expect.stringMatching(/./),
      expect.stringMatching(/replay differs/),
    ]);
  });

  it('gives up with the drop error after the bounded attempts when no connection makes progress (reliability #39)', async () => {
    const r = rig([scripted(full, 1), ...Array.from({ length: 10 }, () => scripted(full, 1))]);
    await expect(r.run()).rejects.toMatchObject({ drop: 'reset' });
    expect(r.calls.filter((c) => c === 'resume').length).toBe(5);
  });
});

describe('followStream on a native job without /resume (the live-only named-event stream)', () => {
  const end = { type: 'end', finish_reason: 'stop', index: 1 } as StreamEvent;
  const record = {
    call_id: 'call_9',
    agent_id: 'A1',
    tool_name: 'user_calculator',
    arguments: { expr: '2+2' },
    round: 1,
    phase: 'Proposing',
    job_id: 'job-1',
    status: 'Pending',
    created_at: 0,
  };

  function nativeRig(toolCalls: () => Promise<unknown[]>) {
    const applied: StreamEvent[] = [];
    const asked: string[] = [];
    const client = {
      submit: async () => ({ job_id: 'job-1' }),
      resume: async () => {
        throw new NsedError('not_found', 'no resume here');
      },
      jobStream: async () => scripted([end]),
      result: async () => ({ job_id: 'job-1', status: 'running', result: null }),
      toolCalls: async (_id: string, opts: { status?: string }) => {
        asked.push(opts.status ?? 'all');
        return toolCalls();
      },
    } as unknown as NsedClient;
    const deps = {
      ctx: { signal: new AbortController().signal, clock: { now: () => new Date(0), sleep: async () => undefined } },
      client,
      renderer: { onEvent: () => undefined, close: async () => undefined },
    } as unknown as TurnDeps;
    const spec = { path: 'native', start: { kind: 'submit', body: {} } } as unknown as TurnSpec;
    const run = () =>
      followStream(
        deps,
        spec,
        (e) => applied.push(e),
        () => 'job-1',
        async () => undefined,
      );
    return { run, applied, asked };
  }

  it('applies a call made before the attach, listed as pending, as a live call before the stream', async () => {
    const r = nativeRig(async () => [record]);
    await r.run();
    expect(r.asked).toEqual(['pending']);
    expect(r.applied).toEqual([
      { type: 'tool-call', id: 'call_9', name: 'calculator', arguments: '{"expr":"2+2"}', index: 0, live: true },
      end,
    ]);
  });

  it('follows the stream alone when the orchestrator cannot list tool calls', async () => {
    const r = nativeRig(async () => {
      throw new NsedError('not_found', 'no listing');
    });
    await r.run();
    expect(r.applied).toEqual([end]);
  });
});

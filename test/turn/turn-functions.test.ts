import { afterEach, describe, expect, it } from 'vitest';
import type { EventStream, NsedClient } from '../../src/api/client.js';
import type { NsedEvent, StreamEvent } from '../../src/events/events.js';
import type { Session } from '../../src/session/model.js';
import { buildChatRequest } from '../../src/turn/build-request.js';
import { executeTurn } from '../../src/turn/execute-turn.js';
import { reconcilePending } from '../../src/turn/reconcile.js';
import { TurnRecorder } from '../../src/turn/record-turn.js';
import { runTurn } from '../../src/turn/run-turn.js';
import { resultOf } from '../../src/turn/turn-result.js';
import { injectMessage } from '../../src/turn/steer/send-injection.js';
import { createSession, startSession } from '../../src/turn/start-session.js';
import { contextRig, TURN_DEFAULTS, type ContextRig } from '../harness/context-rig.js';

const OPTS = TURN_DEFAULTS;
// Rounds this slow never end within a test: a job started on such a simulator is running
// for as long as the test looks at it, with no timing assumed.
// Held at its first phase boundary by the simulator's control: running for as long as the test needs.
const HELD = { hold: true };

let rig: ContextRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const events = (r: ContextRig): Array<Record<string, unknown>> =>
  r.mem.stdout.text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** A session whose pending marker points at `jobId`, as an interrupted `ask` leaves it. */
async function pendingOn(r: ContextRig, session: Session, userTurnId: string, jobId: string): Promise<Session> {
  return r.store.update(session.id, (s) => {
    s.pending_job = {
      job_id: jobId,
      turn: userTurnId,
      path: 'compat',
      policy: s.active_policy,
      started: new Date().toISOString(),
    };
  });
}

/** A session whose turn was sent to the held simulator, with its pending marker recorded. */
async function heldTurn(r: ContextRig) {
  const { session, userTurnId } = await startSession(r.ctx, { prompt: 'q', opts: OPTS, orchestrator: 'x' });
  const start = buildChatRequest(session, session.active_policy, { stream: true });
  if (start.kind !== 'chat') throw new Error('compat request expected');
  const stream = await r.conn.client.chatStream(start.body, { threadKey: start.threadKey });
  return { session, stream, pending: await pendingOn(r, session, userTurnId, stream.jobId ?? '') };
}

describe('startSession and executeTurn', () => {
  it('record the answer, clear the pending marker and end the NDJSON run with one finish event', async () => {
    rig = await contextRig();
    const { session, userTurnId } = await startSession(rig.ctx, {
      prompt: 'Design a cache',
      opts: OPTS,
      orchestrator: rig.conn.orchestrator,
    });
    expect((await executeTurn(rig.ctx, rig.conn, session, userTurnId, OPTS)).exitCode).toBe(0);
    const out = events(rig);
    expect(out.filter((e) => e.type === 'finish' || e.type === 'error')).toEqual([
      expect.objectContaining({ type: 'finish', session: session.id }),
    ]);
    const saved = await rig.store.read(session.id);
    expect(saved.pending_job).toBeUndefined();
    expect(saved.title).toBe('Design a cache');
    expect(saved.turns.map((t) => t.role)).toEqual(['user', 'assistant']);
    expect(saved.turns[1]).toMatchObject({
      status: 'complete',
      content: out.at(-1)?.content,
      job_id: out.at(-1)?.job_id,
    });
  });

  it('executeTurn returns the turn as a value: the same session, job, status, answer, verdict and usage the finish event carries', async () => {
    rig = await contextRig();
    const { session, userTurnId } = await startSession(rig.ctx, { prompt: 'q', opts: OPTS, orchestrator: 'x' });
    const result = await executeTurn(rig.ctx, rig.conn, session, userTurnId, OPTS);
    const finish = events(rig).at(-1);
    expect(result).toEqual({
      session: session.id,
      turn: finish?.turn,
      job: finish?.job_id,
      status: 'complete',
      answer: finish?.content,
      verdict: finish?.verdict,
      gate: null,
      usage: finish?.usage,
      error: null,
      exitCode: 0,
    });
    expect(result.usage).toMatchObject({ cost_source: 'reported' });
  });

  it('a turn that fails throws its error carrying the result: status, partial answer and the error as -o json names them', async () => {
    rig = await contextRig({ sim: { faults: ['fail-at-round=1'] } });
    const { session, userTurnId } = await startSession(rig.ctx, { prompt: 'q', opts: OPTS, orchestrator: 'x' });
    const err = await executeTurn(rig.ctx, rig.conn, session, userTurnId, OPTS).then(
      () => undefined,
      (e: unknown) => e,
    );
    const last = events(rig).at(-1);
    expect(last).toMatchObject({ type: 'error', status: 'failed' });
    expect(resultOf(err)).toMatchObject({
      session: session.id,
      status: 'failed',
      error: { code: last?.code, exit_code: last?.exit_code, message: last?.message },
      exitCode: last?.exit_code,
      usage: null,
    });
  });

  it('createSession stores a fork with the inherited turns and no turn of its own', async () => {
    rig = await contextRig();
    const { session } = await startSession(rig.ctx, { prompt: 'first', opts: OPTS, orchestrator: 'sim' });
    const fork = await createSession(rig.ctx, {
      opts: { ...OPTS, policy: session.active_policy },
      orchestrator: session.orchestrator,
      turns: session.turns,
      forkedFrom: { session: session.id, turn: session.turns[0]?.id ?? null },
      title: 'first (fork)',
    });
    const saved = await rig.store.read(fork.id);
    expect(saved).toMatchObject({ title: 'first (fork)', orchestrator: 'sim', active_policy: session.active_policy });
    expect(saved.turns).toEqual(session.turns);
    expect(saved.conversation_id).not.toBe(session.conversation_id);
  });
});

describe('reconcilePending', () => {
  it('says none when nothing is pending', async () => {
    rig = await contextRig();
    const { session } = await startSession(rig.ctx, { prompt: 'q', opts: OPTS, orchestrator: 'x' });
    expect(await reconcilePending(rig.ctx, rig.conn, session)).toBe('none');
  });

  it('clears the marker of a job the orchestrator no longer knows', async () => {
    rig = await contextRig();
    const { session, userTurnId } = await startSession(rig.ctx, { prompt: 'q', opts: OPTS, orchestrator: 'x' });
    const pending = await pendingOn(rig, session, userTurnId, 'job-unknown');
    expect(await reconcilePending(rig.ctx, rig.conn, pending)).toBe('cleared');
    expect((await rig.store.read(session.id)).pending_job).toBeUndefined();
  });

  it('records the answer of a job that finished while nobody watched', async () => {
    rig = await contextRig();
    const { session, userTurnId } = await startSession(rig.ctx, { prompt: 'q', opts: OPTS, orchestrator: 'x' });
    const start = buildChatRequest(session, session.active_policy, { stream: false });
    if (start.kind !== 'chat') throw new Error('compat request expected');
    const { completion, jobId } = await rig.conn.client.chat(start.body, { threadKey: start.threadKey });
    expect(jobId).toBeDefined();
    const pending = await pendingOn(rig, session, userTurnId, jobId ?? '');
    expect(await reconcilePending(rig.ctx, rig.conn, pending)).toBe('recorded');
    const saved = await rig.store.read(session.id);
    expect(saved.pending_job).toBeUndefined();
    expect(saved.turns.at(-1)).toMatchObject({
      role: 'assistant',
      status: 'complete',
      job_id: jobId,
      content: completion.choices[0]?.message.content,
    });
  });

  it('reports a job still running and keeps its marker', async () => {
    rig = await contextRig({ sim: HELD });
    const { session, stream, pending } = await heldTurn(rig);
    expect(await reconcilePending(rig.ctx, rig.conn, pending)).toBe('running');
    expect((await rig.store.read(session.id)).pending_job?.job_id).toBe(stream.jobId);
    stream.abort();
  });
});

describe('injectMessage', () => {
  it('lands in the running job and is recorded as an injection turn with its round and sequence', async () => {
    rig = await contextRig({ sim: HELD });
    const { session, stream, pending } = await heldTurn(rig);
    const sent = await injectMessage(rig.ctx, rig.conn, pending, 'focus on latency', { wait: false });
    // Where it landed is returned; the command, not this function, shows it in the output mode.
    expect(sent).toMatchObject({
      kind: 'acknowledged',
      pending: { job_id: stream.jobId },
      placed: { sequence: 1, round: expect.any(Number) },
    });
    const saved = await rig.store.read(session.id);
    expect(saved.turns.filter((t) => t.kind === 'injection')).toEqual([
      expect.objectContaining({ content: 'focus on latency', job_id: stream.jobId, sequence: 1 }),
    ]);
    stream.abort();
  });

  it('is a conflict (exit 7) when nothing is running', async () => {
    rig = await contextRig();
    const { session } = await startSession(rig.ctx, { prompt: 'q', opts: OPTS, orchestrator: 'x' });
    await expect(injectMessage(rig.ctx, rig.conn, session, 'm', { wait: false })).rejects.toMatchObject({
      code: 'conflict',
      exitCode: 7,
    });
  });

  it('records the answer of a job that ended before the message landed, then reports the conflict', async () => {
    rig = await contextRig();
    const { session, userTurnId } = await startSession(rig.ctx, { prompt: 'q', opts: OPTS, orchestrator: 'x' });
    const start = buildChatRequest(session, session.active_policy, { stream: false });
    if (start.kind !== 'chat') throw new Error('compat request expected');
    const { jobId } = await rig.conn.client.chat(start.body, { threadKey: start.threadKey });
    const pending = await pendingOn(rig, session, userTurnId, jobId ?? '');
    await expect(injectMessage(rig.ctx, rig.conn, pending, 'too late', { wait: false })).rejects.toMatchObject({
      code: 'conflict',
    });
    const saved = await rig.store.read(session.id);
    expect(saved.pending_job).toBeUndefined();
    expect(saved.turns.at(-1)).toMatchObject({ role: 'assistant', status: 'complete', job_id: jobId });
  });
});

describe('runTurn', () => {
  it('shows and records an injection once when a replay delivers it again', async () => {
    rig = await contextRig();
    const { session, userTurnId } = await startSession(rig.ctx, { prompt: 'q', opts: OPTS, orchestrator: 'x' });
    const injection = { type: 'injection', message: 'focus', round: 1, sequence: 1 } as const;
    const script: StreamEvent[] = [
      { type: 'job', job_id: 'job-1', index: 1 },
      { ...injection, index: 2 },
      { ...injection, index: 3 },
      { type: 'text', text: 'answer', index: 4 },
      { type: 'end', finish_reason: 'stop', index: 5 },
    ];
    async function* each() {
      yield* script;
    }
    async function* batches() {
      for await (const e of each()) yield [e];
    }
    const stream: EventStream = { jobId: 'job-1', abort: () => undefined, batches, [Symbol.asyncIterator]: each };
    const client = { chatStream: async () => stream } as unknown as NsedClient;
    const shown: NsedEvent[] = [];
    const renderer = { onEvent: (e: NsedEvent) => void shown.push(e), close: async () => undefined };
    const recorder = new TurnRecorder(rig.store, session.id);
    const start = buildChatRequest(session, session.active_policy, { stream: true });
    const spec = {
      sessionId: session.id,
      userTurnId,
      assistantTurnId: 'turn-a',
      policy: session.active_policy,
      path: 'compat' as const,
      start,
      stream: true,
    };
    let n = 0;
    const transcript = await runTurn(
      { ctx: rig.ctx, client, renderer, recorder, url: rig.sim.url, newTurnId: () => `turn-${++n}` },
      spec,
    );
    expect(shown.filter((e) => e.type === 'injection')).toEqual([injection]);
    expect(transcript.injections).toEqual([{ message: 'focus', round: 1, sequence: 1 }]);
    const saved = await rig.store.read(session.id);
    expect(saved.turns.filter((t) => t.kind === 'injection')).toHaveLength(1);
    expect(saved.turns.at(-1)).toMatchObject({ id: 'turn-a', status: 'complete', content: 'answer' });
  });
});

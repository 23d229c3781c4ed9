import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { NsedEvent } from '../../src/events/events.js';
import { createClient } from '../../src/api/client.js';
import type { Context } from '../../src/run/context.js';
import { openFileStore } from '../../src/session/file-store.js';
import { SESSION_VERSION, type Session } from '../../src/session/model.js';
import type { SessionStore } from '../../src/session/store.js';
import { TurnRecorder } from '../../src/turn/record-turn.js';
import { runTurn, type TurnSpec } from '../../src/turn/run-turn.js';
import { chunk } from '../api/fixtures.js';
import { scriptedRig, sendJson } from '../harness/scripted-rig.js';
import { sseHead, type Route } from '../harness/scripted-server.js';

/**
 * How a turn ends when the stream does not say it plainly
 * (docs/reliability.md #23, #26, #33, #46, C5, C6): a scripted orchestrator over real HTTP, the
 * real client, the real turn loop and a real temp store. Only the clock is a stand-in (backoff
 * sleeps return at once).
 */

const JOB = 'oc-thread-1-1700000000000';
const ev = (json: string): string => `data: ${json}\n\n`;
const text = (t: string): string => ev(chunk({ content: t }));
const STOP = ev(chunk({}, 'stop'));
const DONE = ev('[DONE]');
const ROLE = ev(chunk({ role: 'assistant', nsed_session_id: JOB }));

const rig = scriptedRig('endings');

/** Ends the response (a close without [DONE] unless the body has it), or holds it open. */
function stream(res: ServerResponse, body: string, end: 'end' | 'hold' = 'end'): void {
  sseHead(res, { 'x-nsed-session-id': JOB });
  if (end === 'end') res.end(body);
  else res.write(body);
}

interface Routes {
  chat: Route;
  resume?: Route;
  result?: Route;
}

async function turn(
  routes: Routes,
): Promise<{ events: NsedEvent[]; error: unknown; session: Session; store: SessionStore; seen: string[] }> {
  const server = await rig.serve((req, res, seen) => {
    const url = seen.url;
    if (url === '/v1/chat/completions') return routes.chat(req, res, seen);
    if (url.endsWith('/resume'))
      return (routes.resume ?? ((_q, r) => sendJson(r, 404, { error: 'not found' })))(req, res, seen);
    if (url.endsWith('/result'))
      return (routes.result ?? ((_q, r) => sendJson(r, 404, { error: 'not found' })))(req, res, seen);
    return sendJson(res, 404, { error: 'not found' });
  });
  const home = await rig.home({ fresh: true });
  const store = openFileStore(home);
  const now = new Date('2026-11-30T10:00:00Z');
  const id = '20261130-0000abcd';
  await store.create({
    version: SESSION_VERSION,
    id,
    title: 'q',
    created: now.toISOString(),
    updated: now.toISOString(),
    active_policy: 'nsed:fast',
    orchestrator: server.url,
    conversation_id: 'thread-1',
    turns: [{ id: 'tu1', role: 'user', kind: 'message', content: 'q', status: 'complete', ts: now.toISOString() }],
  });
  const client = createClient({ baseUrl: server.url, idleTimeoutMs: 60_000 });
  const events: NsedEvent[] = [];
  const ctx = {
    env: {},
    clock: { now: () => now, sleep: () => Promise.resolve() },
    signal: new AbortController().signal,
    signalExit: () => undefined,
    // A replay that differs warns on stderr whatever the mode (docs/reliability.md #33).
    globals: { settings: { output: { value: 'ndjson' }, onExit: { value: 'detach' } } },
    io: { stderr: { write: () => true } },
    randomHex: (n: number) => '1'.repeat(n * 2),
  } as unknown as Context;
  const spec: TurnSpec = {
    sessionId: id,
    userTurnId: 'tu1',
    assistantTurnId: 'ta1',
    policy: 'nsed:fast',
    path: 'compat',
    start: {
      kind: 'chat',
      body: { model: 'nsed:fast', messages: [{ role: 'user', content: 'q' }] },
      threadKey: 'thread-1',
    },
    stream: true,
  };
  let error: unknown;
  try {
    await runTurn(
      {
        ctx,
        client,
        renderer: { onEvent: (e) => events.push(e), close: () => Promise.resolve() },
        recorder: new TurnRecorder(store, id),
        url: server.url,
        newTurnId: () => 'ti1',
      },
      spec,
    );
  } catch (err) {
    error = err;
  } finally {
    await client.close();
  }
  // The verdict's side reads once a turn ended (/details, /agents, /budget: docs/ndjson.md §4b)
  // ask nothing about how the turn ended, so they are left out of what each test counts.
  const seen = server.seen.map((s) => `${s.method} ${s.url}`).filter((s) => !SIDE_READ.test(s));
  return { events, error, session: await store.read(id), store, seen };
}

const SIDE_READ = /^GET \/(agents|deliberation\/[^/]+\/(details|budget))$/;

const answer = (s: Session) => s.turns.find((t) => t.role === 'assistant');

describe('stop or tool_calls ends the turn without [DONE] (reliability #23)', () => {
  it('a stop finish ends the turn though the connection stays open and [DONE] never comes', async () => {
    const r = await turn({ chat: (_q, res) => stream(res, ROLE + text('The answer.') + STOP, 'hold') });
    expect(r.error).toBeUndefined();
    expect(r.events.at(-1)).toMatchObject({ type: 'finish', finish_reason: 'stop', content: 'The answer.' });
    expect(r.events.some((e) => e.type === 'reconnect')).toBe(false);
    expect(r.seen).toEqual(['POST /v1/chat/completions']);
    expect(answer(r.session)).toMatchObject({ status: 'complete', content: 'The answer.' });
    expect(r.session.pending_job).toBeUndefined();
  });
});

describe('an ending the seeds do not define is judged by GET /result', () => {
  const result =
    (status: string, value: string | null = null): Route =>
    (_q, res) =>
      sendJson(res, 200, { job_id: JOB, status, result: value });

  it('bare [DONE] of a completed job: the answer /result gives, the unshown rest shown', async () => {
    const r = await turn({
      chat: (_q, res) => stream(res, ROLE + text('The ans') + DONE),
      result: result('completed', 'The answer.'),
    });
    expect(r.error).toBeUndefined();
    expect(
      r.events
        .filter((e) => e.type === 'text')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe('The answer.');
    expect(r.events.at(-1)).toMatchObject({ type: 'finish', finish_reason: 'stop', content: 'The answer.' });
    expect(r.seen).toEqual(['POST /v1/chat/completions', `GET /deliberation/${JOB}/result`]);
    expect(answer(r.session)).toMatchObject({ status: 'complete', content: 'The answer.' });
  });

  it('bare [DONE] of a failed job: failed, exit 5, the marker cleared', async () => {
    const r = await turn({ chat: (_q, res) => stream(res, ROLE + DONE), result: result('failed: quorum lost') });
    expect(r.error).toMatchObject({ code: 'server', exitCode: 5 });
    expect(r.events.at(-1)).toMatchObject({
      type: 'error',
      code: 'server',
      exit_code: 5,
      message: expect.stringMatching(/quorum lost/),
    });
    expect(answer(r.session)).toMatchObject({ status: 'failed' });
    expect(r.session.pending_job).toBeUndefined();
  });

  it('bare [DONE] of a cancelled job: cancelled, exit 9, distinct from a failure', async () => {
    const r = await turn({
      chat: (_q, res) => stream(res, ROLE + text('partial') + DONE),
      result: result('failed: cancelled'),
    });
    expect(r.error).toMatchObject({ code: 'cancelled', exitCode: 9 });
    expect(r.events.at(-1)).toMatchObject({ type: 'error', code: 'cancelled', exit_code: 9 });
    expect(answer(r.session)).toMatchObject({ status: 'cancelled', content: 'partial' });
    expect(r.session.pending_job).toBeUndefined();
  });

  it('an undocumented finish reason is not taken at its word: /result decides', async () => {
    const r = await turn({
      chat: (_q, res) => stream(res, ROLE + text('x') + ev(chunk({}, 'cancelled')) + DONE),
      result: result('completed', 'x and more'),
    });
    expect(r.error).toBeUndefined();
    expect(answer(r.session)).toMatchObject({ status: 'complete', content: 'x and more' });
  });

  it('a close without either: /result completed gives the answer', async () => {
    const r = await turn({
      chat: (_q, res) => stream(res, ROLE + text('The')),
      result: result('completed', 'The answer.'),
    });
    expect(r.error).toBeUndefined();
    expect(answer(r.session)).toMatchObject({ status: 'complete', content: 'The answer.' });
  });

  it('a close without either: /result cancelled ends it as cancelled (exit 9)', async () => {
    const r = await turn({ chat: (_q, res) => stream(res, ROLE), result: result('cancelled') });
    expect(r.error).toMatchObject({ code: 'cancelled', exitCode: 9 });
    expect(answer(r.session)).toMatchObject({ status: 'cancelled' });
  });

  it('bare [DONE] while /result says running: resumed, and the replay ends it', async () => {
    let results = 0;
    const r = await turn({
      chat: (_q, res) => stream(res, ROLE + text('The ') + DONE),
      result: (_q, res) =>
        sendJson(res, 200, { job_id: JOB, status: results++ === 0 ? 'running: round 2' : 'completed', result: null }),
      resume: (_q, res) => stream(res, ROLE + text('The ') + text('answer.') + STOP + DONE),
    });
    expect(r.error).toBeUndefined();
    expect(answer(r.session)).toMatchObject({ status: 'complete', content: 'The answer.' });
    expect(r.seen).toContain(`POST /deliberation/${JOB}/resume`);
  });

  it('bare [DONE] from a server that named no job (a roomless reply): nothing to ask, the answer stands', async () => {
    const r = await turn({
      chat: (_q, res) => {
        sseHead(res);
        res.end(ev(chunk({ role: 'assistant' })) + text('Hi.') + DONE);
      },
    });
    expect(r.error).toBeUndefined();
    expect(r.seen).toEqual(['POST /v1/chat/completions']);
    expect(answer(r.session)).toMatchObject({ status: 'complete', content: 'Hi.' });
  });

  it('a close without either and /result 404: interrupted, the partial answer kept', async () => {
    const r = await turn({ chat: (_q, res) => stream(res, ROLE + text('part')) });
    expect(r.error).toMatchObject({ code: 'not_found' });
    expect(answer(r.session)).toMatchObject({ status: 'interrupted', content: 'part' });
  });
});

describe('no answer given up while the server may still produce it (reliability #46, C6)', () => {
  it('resume answering 503 every time leaves the turn interrupted with its marker, exit 6', async () => {
    const r = await turn({
      chat: (_q, res) => stream(res, ROLE + text('part')),
      resume: (_q, res) => sendJson(res, 503, { error: 'deploying' }),
      result: (_q, res) => sendJson(res, 200, { job_id: JOB, status: 'running', result: null }),
    });
    expect(r.error).toMatchObject({ code: 'network', exitCode: 6 });
    expect(r.events.at(-1)).toMatchObject({
      type: 'error',
      exit_code: 6,
      message: expect.stringMatching(/gave up resuming/),
    });
    expect(r.seen.filter((s) => s.endsWith('/resume')).length).toBe(5);
    expect(answer(r.session)).toMatchObject({ status: 'interrupted', content: 'part' });
    expect(r.session.pending_job).toMatchObject({ job_id: JOB, turn: 'tu1' });
  });
});

const running: Route = (_q, res) => sendJson(res, 200, { job_id: JOB, status: 'running', result: null });

describe('a replay that differs is reported, never spliced silently (reliability #33, C5)', () => {
  it('catches other text of the same length in the replayed prefix', async () => {
    const r = await turn({
      chat: (_q, res) => stream(res, ROLE + text('abc') + text('def')),
      result: running,
      resume: (_q, res) => stream(res, ROLE + text('abc') + text('XYZ') + text('ghi') + STOP + DONE),
    });
    expect(r.error).toBeUndefined();
    const notes = r.events.filter((e) => e.type === 'reconnect').map((e) => (e as { reason: string }).reason);
    expect(notes).toEqual([expect.any(String), expect.stringMatching(/replay differs/)]);
  });

  it('stays quiet when the replay is what was shown', async () => {
    const r = await turn({
      chat: (_q, res) => stream(res, ROLE + text('abc') + text('def')),
      result: running,
      resume: (_q, res) => stream(res, ROLE + text('abc') + text('def') + text('ghi') + STOP + DONE),
    });
    expect(r.error).toBeUndefined();
    expect(r.events.filter((e) => e.type === 'reconnect').map((e) => (e as { reason: string }).reason)).toEqual([
      expect.not.stringMatching(/differs/),
    ]);
    expect(answer(r.session)).toMatchObject({ status: 'complete', content: 'abcdefghi' });
  });
});

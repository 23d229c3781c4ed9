// A task's id and state as nsed keeps them (src/mcp/tasks.ts): the id a client sends is checked
// whole before it names anything in the store, and a question's state is read from the session's
// turns alone, so any server process on the same store reads the same task.
import { describe, expect, it } from 'vitest';
import { SessionFeed } from '../../src/mcp/feed.js';
import {
  askedTurn,
  feedAnswerTurn,
  parseTaskId,
  statusMessage,
  storedTurnState,
  taskId,
  taskStatus,
} from '../../src/mcp/tasks.js';
import type { TurnState } from '../../src/mcp/turn-state.js';
import { session, turn } from '../harness/temp-store.js';

const pending = (job: string, asked: string) => ({
  job_id: job,
  turn: asked,
  path: 'native' as const,
  policy: 'nsed:fast',
  started: '2026-01-01T00:00:01.000Z',
});

describe('a task id', () => {
  it('names the session and the question, and reads back to both', () => {
    const ref = { session: '20261206-3f9a2c1b', turn: 't0123456789ab' };
    expect(taskId(ref)).toBe('20261206-3f9a2c1b.t0123456789ab');
    expect(parseTaskId(taskId(ref))).toEqual(ref);
  });

  it.each([
    '',
    '.',
    'garbage',
    '20261206-3f9a2c1b',
    '20261206-3f9a2c1b.',
    '.t0123456789ab',
    '20261206-3f9a2c1b.t0123456789ab.json',
    '../20261206-3f9a2c1b.t0123456789ab',
    '20261206-3f9a2c1b/t0123456789ab',
    '..\\sessions.t0123456789ab',
    '20261206-3f9a2c1b.t01234/../x',
    'con.t0123456789ab',
    'nul.t0123456789ab',
    '20261206-3f9a2c1b.t0123456789ab\u0000',
    `${'a'.repeat(129)}.t0123456789ab`,
    `${'a'.repeat(128)}.${'b'.repeat(129)}`,
  ])('refuses %j, which is no task id of nsed and could name nothing in the store', (id) => {
    expect(parseTaskId(id)).toBeUndefined();
  });
});

describe("a question's stored state", () => {
  const asked = turn('tq1');

  it('is running while the pending job answers it, also when an owner that went away recorded it interrupted', () => {
    const s = session('s1', { turns: [asked], pending_job: pending('job-1', 'tq1') });
    expect(storedTurnState(s, 'tq1')).toMatchObject({ status: 'running', done: false, job_id: 'job-1' });
    const cut = turn('ta1', { role: 'assistant', status: 'interrupted', job_id: 'job-1', error: 'detached' });
    const left = session('s1', { turns: [asked, cut], pending_job: pending('job-1', 'tq1') });
    expect(storedTurnState(left, 'tq1')).toMatchObject({ status: 'running', done: false, error: null, content: null });
  });

  it('is its answer once recorded, and stays so after the session asks another question', () => {
    const answer = turn('ta1', { role: 'assistant', content: 'Use Postgres', job_id: 'job-1' });
    const later = [turn('tq2'), turn('ta2', { role: 'assistant', status: 'cancelled', job_id: 'job-2' })];
    const s = session('s1', { turns: [asked, answer, ...later] });
    expect(storedTurnState(s, 'tq1')).toMatchObject({ status: 'complete', done: true, content: 'Use Postgres' });
    expect(storedTurnState(s, 'tq2')).toMatchObject({ status: 'cancelled', done: true, job_id: 'job-2' });
  });

  it('waits while the answer stopped at a call nobody answered (the chat surface keeps the job pending)', () => {
    const answer = turn('ta1', {
      role: 'assistant',
      job_id: 'job-1',
      finish_reason: 'tool_calls',
      tool_calls: [{ id: 'call_1', name: 'calculator', arguments: '{"expr":"2+2"}' }],
    });
    const s = session('s1', { turns: [asked, answer], pending_job: pending('job-1', 'tq1') });
    const state = storedTurnState(s, 'tq1');
    expect(state).toMatchObject({ status: 'waiting', done: false });
    expect(taskStatus(state as TurnState, false)).toBe('input_required');
    expect(statusMessage(state as TurnState, undefined)).toBe(
      'the council waits for an answer (answer_tool_call, session s1): call_1: calculator({"expr":"2+2"})',
    );
  });

  it('is unknown for a turn that is no question of the session: an answer, an injection, or none', () => {
    const s = session('s1', {
      turns: [asked, turn('ta1', { role: 'assistant' }), turn('ti1', { kind: 'injection' })],
    });
    for (const id of ['ta1', 'ti1', 'tnone']) expect(storedTurnState(s, id), id).toBeUndefined();
  });

  it('names the question a turn tool asked: the pending job, else the one before the answer it started', () => {
    const answer = turn('ta1', { role: 'assistant', job_id: 'job-1' });
    expect(askedTurn(session('s1', { turns: [asked], pending_job: pending('job-1', 'tq1') }), null)).toBe('tq1');
    const s = session('s1', { turns: [asked, answer, turn('tq2')] });
    expect(askedTurn(s, 'ta1')).toBe('tq1');
    expect(askedTurn(s, null)).toBe('tq2');
  });
});

describe("a task's status", () => {
  const state = (over: Partial<TurnState>): TurnState => ({
    ...(storedTurnState(session('s1', { turns: [turn('tq1')] }), 'tq1') as TurnState),
    ...over,
  });

  it('is the spec status of the turn: working, input_required, completed, failed or cancelled', () => {
    expect(taskStatus(state({ status: 'starting' }), false)).toBe('working');
    expect(taskStatus(state({ status: 'running' }), false)).toBe('working');
    expect(taskStatus(state({ status: 'waiting' }), false)).toBe('input_required');
    expect(taskStatus(state({ status: 'complete', done: true }), false)).toBe('completed');
    // An answer the tool refuses (on_partial refuse, a max-synthetic gate) is a failed task.
    expect(taskStatus(state({ status: 'complete', done: true }), true)).toBe('failed');
    expect(taskStatus(state({ status: 'failed', done: true }), true)).toBe('failed');
    expect(taskStatus(state({ status: 'interrupted', done: true }), true)).toBe('failed');
    expect(taskStatus(state({ status: 'cancelled', done: true }), false)).toBe('cancelled');
  });

  it('says, while it works, the progress line of the run this server follows, in one row', () => {
    const feed = new SessionFeed('s1');
    feed.push({
      type: 'turn-start',
      session: 's1',
      turn: 'ta1',
      policy: 'fast',
      agents: null,
      path: 'native',
      url: '',
    });
    expect(feedAnswerTurn(feed)).toBe('ta1');
    feed.push({ type: 'job', job_id: 'job-1' });
    feed.push({ type: 'round', round: 1, total_rounds: 3, progress: 0.1, scored: false, candidates: [] });
    expect(statusMessage(state({ status: 'running', job_id: 'job-1' }), feed)).toBe('round 1/3: proposals in');
    // Nothing here follows it: said so, rather than a progress line nobody can give.
    expect(statusMessage(state({ status: 'running', job_id: 'job-1' }), undefined)).toBe(
      'deliberation job-1 running, followed by another process',
    );
    const long = state({ status: 'failed', done: true, error: { code: 'x', exit_code: 5, message: 'y'.repeat(900) } });
    expect(statusMessage(long, undefined).length).toBeLessThanOrEqual(300);
    expect(statusMessage(long, undefined)).not.toContain('\n');
  });
});

import { describe, expect, it } from 'vitest';
import { NsedError } from '../../src/errors.js';
import {
  findAssistantTurnForJob,
  lineageMessages,
  resolveTurnRef,
  upsertAssistantTurn,
  upsertInjection,
} from '../../src/session/lineage.js';
import { session, turn } from '../harness/temp-store.js';

const transcript = () =>
  session('s1', {
    turns: [
      turn('t1', { content: 'first question' }),
      turn('t2', { role: 'assistant', content: 'first answer', job_id: 'j1' }),
      turn('t3', { content: 'second question' }),
      turn('t4', { kind: 'injection', content: 'steer', job_id: 'j2', sequence: 1 }),
      turn('t5', { role: 'assistant', content: 'partial', status: 'interrupted', job_id: 'j2' }),
      turn('t6', { content: '   ' }),
      turn('t7', { role: 'assistant', content: 'broken', status: 'failed', job_id: 'j3' }),
    ],
  });

describe('lineageMessages', () => {
  it('replays user turns and injections as user, and only complete answers as assistant', () => {
    expect(lineageMessages(transcript())).toEqual([
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'second question' },
      { role: 'user', content: 'steer' },
    ]);
  });

  it.each([
    [0, ['first question']],
    [1, ['first question', 'first answer']],
    [3, ['first question', 'first answer', 'second question', 'steer']],
  ])('stops after turn index %i inclusive', (upto, contents) => {
    expect(lineageMessages(transcript(), upto).map((m) => m.content)).toEqual(contents);
  });

  it('gives nothing for an empty session', () => {
    expect(lineageMessages(session('e'))).toEqual([]);
  });
});

describe('findAssistantTurnForJob', () => {
  it('finds the answer of a job and ignores user turns of the same job', () => {
    expect(findAssistantTurnForJob(transcript(), 'j2')?.id).toBe('t5');
    expect(findAssistantTurnForJob(transcript(), 'nope')).toBeUndefined();
  });
});

describe('upsertAssistantTurn', () => {
  it('appends an answer for a new job', () => {
    const s = transcript();
    upsertAssistantTurn(s, turn('t8', { role: 'assistant', job_id: 'j9', content: 'new' }));
    expect(s.turns.at(-1)?.id).toBe('t8');
    expect(s.turns).toHaveLength(8);
  });

  it('replaces an interrupted answer of the same job in place, keeping its id', () => {
    const s = transcript();
    const stored = upsertAssistantTurn(
      s,
      turn('tX', { role: 'assistant', job_id: 'j2', content: 'whole', status: 'complete' }),
    );
    expect(stored.id).toBe('t5');
    expect(s.turns[4]).toMatchObject({ id: 't5', content: 'whole', status: 'complete' });
    expect(s.turns).toHaveLength(7);
  });

  it('is idempotent per job: recording the same answer twice leaves one turn', () => {
    const s = transcript();
    const answer = turn('t8', { role: 'assistant', job_id: 'j9', content: 'once' });
    upsertAssistantTurn(s, answer);
    upsertAssistantTurn(s, { ...answer, id: 't9' });
    expect(s.turns.filter((t) => t.job_id === 'j9')).toHaveLength(1);
  });

  it('never downgrades a complete answer to an interrupted replay', () => {
    const s = transcript();
    const stored = upsertAssistantTurn(
      s,
      turn('tX', { role: 'assistant', job_id: 'j1', content: 'fragment', status: 'interrupted' }),
    );
    expect(stored).toMatchObject({ id: 't2', content: 'first answer', status: 'complete' });
  });

  it('appends an answer without a job id', () => {
    const s = transcript();
    upsertAssistantTurn(s, turn('t8', { role: 'assistant', content: 'no job' }));
    expect(s.turns).toHaveLength(8);
  });
});

describe('upsertInjection', () => {
  it('merges a second sighting of the same job and sequence into the first', () => {
    const s = transcript();
    upsertInjection(s, turn('tY', { kind: 'injection', content: 'steer', job_id: 'j2', sequence: 1, round: 3 }));
    expect(s.turns.filter((t) => t.kind === 'injection')).toEqual([expect.objectContaining({ id: 't4', round: 3 })]);
  });

  it('puts a new injection before its job answer when that answer is already recorded', () => {
    const s = transcript();
    upsertInjection(s, turn('tZ', { kind: 'injection', content: 'again', job_id: 'j2', sequence: 2 }));
    expect(s.turns.map((t) => t.id).slice(3, 6)).toEqual(['t4', 'tZ', 't5']);
  });

  it('appends an injection for a job with no answer yet', () => {
    const s = transcript();
    upsertInjection(s, turn('tZ', { kind: 'injection', content: 'later', job_id: 'j7', sequence: 1 }));
    expect(s.turns.at(-1)?.id).toBe('tZ');
  });

  it('dedupes injections without a sequence by their content', () => {
    const s = session('s', { turns: [] });
    const inj = turn('a', { kind: 'injection', content: 'x', job_id: 'j' });
    upsertInjection(s, inj);
    upsertInjection(s, { ...inj, id: 'b' });
    upsertInjection(s, { ...inj, id: 'c', content: 'y' });
    expect(s.turns.map((t) => t.id)).toEqual(['a', 'c']);
  });

  it('merges a sequence-less record with the sighting that knows its sequence, in either order', () => {
    for (const order of [
      ['bare', 'placed'],
      ['placed', 'bare'],
    ]) {
      const s = session('s', { turns: [] });
      const records = {
        bare: turn('a', { kind: 'injection', content: 'steer', job_id: 'j' }),
        placed: turn('b', { kind: 'injection', content: 'steer', job_id: 'j', sequence: 1, round: 2 }),
      };
      for (const k of order) upsertInjection(s, records[k as 'bare' | 'placed']);
      expect(s.turns).toEqual([expect.objectContaining({ content: 'steer', sequence: 1, round: 2 })]);
    }
  });
});

describe('resolveTurnRef', () => {
  it.each([
    ['t3', 2],
    ['1', 0],
    ['7', 6],
    ['-1', 6],
    ['-7', 0],
  ])('resolves %s to index %i', (ref, index) => {
    expect(resolveTurnRef(transcript(), ref)).toBe(index);
  });

  it.each([
    ['0', 2],
    ['8', 3],
    ['-8', 3],
    ['t99', 3],
    ['\u001b[2Jx', 3],
  ])('refuses %j with exit %i', (ref, exit) => {
    let err: unknown;
    try {
      resolveTurnRef(transcript(), ref);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NsedError);
    expect((err as NsedError).exitCode).toBe(exit);
    expect((err as NsedError).message).not.toContain('\u001b');
  });
});

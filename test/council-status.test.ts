import { describe, expect, it } from 'vitest';
import { councilLine, councilStatus } from '../src/council/council-status.js';
import type { Candidate, NsedRound } from '../src/protocol/wire.js';
import { deriveVerdict, type BallotCell, type CouncilVerdict } from '../src/council/verdict.js';

const candidate = (agent_id: string, counts: Partial<Candidate> = {}): Candidate => ({
  agent_id,
  score: 0.5,
  content_preview: '',
  thought_preview: '',
  claims: [],
  ...counts,
});
const round = (n: number, candidates: Candidate[]): NsedRound => ({
  round: n,
  total_rounds: 2,
  progress: n / 2,
  scored: true,
  candidates,
});

/** A verdict whose final round's ballots are `matrix` and whose stand-in share is `final` (`all` alike). */
function verdictWith(matrix: BallotCell[] | null, final: number | null): CouncilVerdict {
  const v = deriveVerdict({ rounds: [], reasoning: null });
  return {
    ...v,
    ballots: matrix === null ? null : { round: 2, chosen: [], matrix },
    trust: { ...v.trust, synthetic_share: { final, all: final } },
  };
}
const cell = (evaluator: string, target: string, synthetic: boolean | null): BallotCell => ({
  evaluator,
  target,
  score: synthetic === true ? 0 : 0.7,
  stance: 'agree',
  synthetic,
});

describe('the council status: whether the whole council voted', () => {
  it('a council whose ballots are all real is complete, with nobody timed out and no status line', () => {
    const matrix = [cell('A', 'B', false), cell('B', 'A', false), cell('C', 'A', false), cell('A', 'C', null)];
    const c = councilStatus({ rounds: [], verdict: verdictWith(matrix, 0), failed: false });
    expect(c).toEqual({ status: 'complete', asked: 3, answered: 3, timed_out: [], synthetic_share: 0 });
    expect(councilLine(c)).toBeNull();
  });

  it('an evaluator whose every final vote is a stand-in timed out: degraded, named first in the status line', () => {
    const matrix = [cell('A', 'B', false), cell('B', 'A', true), cell('B', 'C', true), cell('C', 'A', false)];
    const c = councilStatus({ rounds: [], verdict: verdictWith(matrix, 0.5), failed: false });
    expect(c).toEqual({ status: 'degraded', asked: 3, answered: 2, timed_out: ['B'], synthetic_share: 0.5 });
    expect(councilLine(c)).toBe(
      'council degraded: B did not vote (timed out); 2 of 3 answered, 50% of the final votes stand-ins',
    );
  });

  it('while the turn runs, the round summaries count stand-ins but name no one: degraded, timed_out unknown', () => {
    const rounds = [
      round(1, [candidate('A', { real_evals: 1, synthetic_evals: 1 }), candidate('B', { real_evals: 2 })]),
    ];
    const c = councilStatus({ rounds, verdict: null, failed: false });
    expect(c).toEqual({ status: 'degraded', asked: 2, answered: null, timed_out: null, synthetic_share: 0.25 });
    expect(councilLine(c)).toMatch(/^council degraded: some votes were stand-ins .*the server did not say whose/);
  });

  it('stand-ins in an earlier round degrade the council even when the final round was whole', () => {
    const rounds = [
      round(1, [candidate('A', { real_evals: 0, synthetic_evals: 1 }), candidate('B', { real_evals: 1 })]),
      round(2, [candidate('A', { real_evals: 1, synthetic_evals: 0 }), candidate('B', { real_evals: 1 })]),
    ];
    expect(councilStatus({ rounds, verdict: null, failed: false }).status).toBe('degraded');
    const whole = councilStatus({ rounds: rounds.slice(1), verdict: null, failed: false });
    expect(whole).toEqual({ status: 'complete', asked: 2, answered: 2, timed_out: [], synthetic_share: 0 });
  });

  it('nobody voted, or the turn failed: failed', () => {
    const matrix = [cell('A', 'B', true), cell('B', 'A', true)];
    const none = councilStatus({ rounds: [], verdict: verdictWith(matrix, 1), failed: false });
    expect(none).toMatchObject({ status: 'failed', asked: 2, answered: 0, timed_out: ['A', 'B'] });
    expect(councilLine(none)).toMatch(/^council failed: A, B did not vote \(timed out\); 0 of 2 answered/);
    const failed = councilStatus({ rounds: [], verdict: null, failed: true });
    expect(failed.status).toBe('failed');
    expect(councilLine(failed)).toBeNull();
  });

  it('a server that says nothing of who voted (no counts, no ballots) leaves the council unknown, never complete', () => {
    const rounds = [round(1, [candidate('A'), candidate('B')])];
    const c = councilStatus({ rounds, verdict: verdictWith(null, null), failed: false });
    expect(c).toEqual({ status: 'unknown', asked: 2, answered: null, timed_out: null, synthetic_share: null });
    expect(councilLine(c)).toBeNull();
  });
});

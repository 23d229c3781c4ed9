// A gate on data the server did not give is inconclusive, never a pass (as --min-endorse without
// real evaluators already is), judged on the verdict derived from what the server sent: the
// rounds as the stream carries them (a native round with the summary's counts), /details.
import { describe, expect, it } from 'vitest';
import { parseDetails } from '../../src/protocol/details.js';
import type { Candidate, Claim, NsedRound } from '../../src/protocol/wire.js';
import { deriveVerdict, judgeGates } from '../../src/council/verdict.js';

const cand = (agent_id: string, score: number, extra: Partial<Candidate> = {}): Candidate => ({
  agent_id,
  score,
  content_preview: '',
  thought_preview: '',
  claims: [],
  ...extra,
});
const round = (candidates: Candidate[]): NsedRound => ({
  round: 1,
  total_rounds: 1,
  progress: 1,
  scored: true,
  candidates,
});
// A claim whose verdict the server sent as null (the stream processor keeps what it got).
const unjudged = (text: string): Claim => ({ claim: text, verdict: null as unknown as Claim['verdict'] });

/** /details of one round: A's proposal evaluated by B, C and D, with the `synthetic` flag as given (absent: none). */
const detailsOf = (synthetic?: boolean) =>
  parseDetails({
    job_id: 'j1',
    history: [
      {
        round: 1,
        author_agent_id: 'A',
        evaluations: ['B', 'C', 'D'].map((e) => ({
          evaluator_agent_id: e,
          evaluation: { score: 0.8, stance: 'agree', ...(synthetic === undefined ? {} : { synthetic }) },
        })),
        aggregated_score: 0.8,
      },
    ],
    rounds: [{ round: 1, convergence_score: 0.9, decisiveness: 0.5 }],
    final_result: { round: 1, author_agent_id: 'A' },
  });

describe('--max-wrong on claims nobody judged', () => {
  it('is inconclusive (not reported) when every claim of the chosen proposal has a null verdict, as is --max-contested', () => {
    const v = deriveVerdict({
      rounds: [round([cand('A', 0.9, { claims: [unjudged('c1'), unjudged('c2')] }), cand('B', 0.2)])],
      reasoning: '',
    });
    expect(v.claims?.chosen_counts).toMatchObject({ wrong: 0, contested: 0, unknown: 2 });
    const result = judgeGates(v, { 'max-wrong': 0, 'max-contested': 0 });
    expect(result).toEqual({
      status: 'inconclusive',
      reason: 'not_reported',
      checks: [
        { name: 'max-wrong', expected: 0, actual: null, status: 'inconclusive', reason: 'not_reported' },
        { name: 'max-contested', expected: 0, actual: null, status: 'inconclusive', reason: 'not_reported' },
      ],
    });
  });

  it('is judged once one claim has a verdict: the null ones do not hide a wrong one', () => {
    const claims: Claim[] = [unjudged('c1'), { claim: 'c2', verdict: 'wrong' }];
    const v = deriveVerdict({ rounds: [round([cand('A', 0.9, { claims }), cand('B', 0.2)])], reasoning: '' });
    expect(judgeGates(v, { 'max-wrong': 0 }).checks).toEqual([
      { name: 'max-wrong', expected: 0, actual: 1, status: 'fail' },
    ]);
  });
});

describe('--max-synthetic on a final round the sources do not agree on', () => {
  // The native round summary: 0 real and 3 synthetic evaluations of A's proposal.
  const summarised = [round([cand('A', 0.8, { real_evals: 0, synthetic_evals: 3 })])];

  it('is inconclusive when the round summary counts 0 real and 3 synthetic and /details flags none (absent or false)', () => {
    for (const flag of [undefined, false]) {
      const v = deriveVerdict({ rounds: summarised, reasoning: '', details: detailsOf(flag) });
      expect(v.trust.synthetic_share.final, `synthetic: ${String(flag)}`).toBeNull();
      expect(judgeGates(v, { 'max-synthetic': 0 })).toMatchObject({
        status: 'inconclusive',
        checks: [{ name: 'max-synthetic', actual: null, status: 'inconclusive', reason: 'not_reported' }],
      });
    }
  });

  it('is judged where the sources agree, or only one was given', () => {
    const agreeing = deriveVerdict({ rounds: summarised, reasoning: '', details: detailsOf(true) });
    expect(judgeGates(agreeing, { 'max-synthetic': 0 }).checks).toEqual([
      { name: 'max-synthetic', expected: 0, actual: 1, status: 'fail' },
    ]);
    const summaryOnly = deriveVerdict({ rounds: summarised, reasoning: '' });
    expect(summaryOnly.trust.synthetic_share.final).toBe(1);
    const detailsOnly = deriveVerdict({ rounds: [round([cand('A', 0.8)])], reasoning: '', details: detailsOf(false) });
    expect(judgeGates(detailsOnly, { 'max-synthetic': 0 }).status).toBe('pass');
  });
});

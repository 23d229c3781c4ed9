import { describe, expect, it } from 'vitest';
import { fleissKappa, familyOf, type Ballot } from '../../src/council/ballots.js';
import { parseDetails } from '../../src/protocol/details.js';
import type { Candidate, Claim, NsedRound } from '../../src/protocol/wire.js';
import { deriveVerdict, judgeGates, readVerdict } from '../../src/council/verdict.js';

const claim = (text: string, verdict: Claim['verdict']): Claim => ({ claim: text, verdict });
const cand = (agent_id: string, score: number, claims: Claim[] = []): Candidate => ({
  agent_id,
  score,
  content_preview: '',
  thought_preview: '',
  claims,
});
const round = (n: number, candidates: Candidate[]): NsedRound => ({
  round: n,
  total_rounds: 2,
  progress: n / 2,
  scored: true,
  candidates,
});

type Stance = 'strong_agree' | 'agree' | 'neutral' | 'disagree' | 'strong_disagree';
const evaluation = (
  evaluator: string,
  score: number,
  stance: Stance,
  claims: Array<[string, string]>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
  evaluator_agent_id: evaluator,
  evaluation: {
    score,
    stance,
    justification: `${evaluator} on it`,
    claim_assessments: claims.map(([c, verdict]) => ({ claim: c, verdict })),
    ...extra,
  },
});

/**
 * A hand-computed Fleiss' kappa: three evaluators, four claims.
 *   claim 1: verified ×3          P = 1
 *   claim 2: verified ×2, wrong   P = 2/6
 *   claim 3: wrong ×3             P = 1
 *   claim 4: contested, verified, wrong   P = 0
 * P̄ = 0.583333; p(verified) = 6/12, p(wrong) = 5/12, p(contested) = 1/12; P̄e = 0.430556;
 * κ = (0.583333 − 0.430556) / (1 − 0.430556) = 0.2683.
 */
const TABLE: Array<Array<[string, string]>> = [
  [
    ['c1', 'verified'],
    ['c2', 'verified'],
    ['c3', 'wrong'],
    ['c4', 'contested'],
  ],
  [
    ['c1', 'verified'],
    ['c2', 'verified'],
    ['c3', 'wrong'],
    ['c4', 'verified'],
  ],
  [
    ['c1', 'verified'],
    ['c2', 'wrong'],
    ['c3', 'wrong'],
    ['c4', 'wrong'],
  ],
];

const details = parseDetails({
  job_id: 'j1',
  history: [
    { round: 1, author_agent_id: 'A', evaluations: [evaluation('B', 0.1, 'neutral', [])], aggregated_score: 0.1 },
    { round: 1, author_agent_id: 'B', evaluations: [evaluation('A', 0.6, 'agree', [])], aggregated_score: 0.6 },
    {
      round: 2,
      author_agent_id: 'A',
      evaluations: [
        evaluation('B', 0.9, 'strong_agree', TABLE[0] ?? []),
        evaluation('C', 0.7, 'agree', TABLE[1] ?? []),
        evaluation('D', -0.4, 'disagree', TABLE[2] ?? [], {
          disagreements: [{ evaluator_position: 'c2 ignores retries', confidence: 'high' }],
        }),
        evaluation('E', 0.8, 'agree', [['c1', 'wrong']], { synthetic: true }),
      ],
      aggregated_score: 0.7,
    },
    {
      round: 2,
      author_agent_id: 'B',
      evaluations: [evaluation('A', 0.2, 'neutral', []), evaluation('E', 0.5, 'agree', [], { synthetic: true })],
      aggregated_score: 0.35,
    },
  ],
  rounds: [
    { round: 1, convergence_score: 0.4, decisiveness: 0.2 },
    { round: 2, convergence_score: 0.8, decisiveness: 0.55 },
  ],
  final_result: { round: 2, author_agent_id: 'A' },
});

const rounds = [
  round(1, [cand('A', 0.1), cand('B', 0.6)]),
  round(2, [
    cand('A', 0.7, [claim('c1', 'verified'), claim('c1', 'wrong'), claim('c2', 'verified')]),
    cand('B', 0.35, [claim('retries are bounded', 'verified'), claim('c2', 'verified')]),
  ]),
];
const agents = [
  { agent_id: 'A', model_name: 'gpt-4o', provider_id: 'openai', is_online: true, capability_tags: [] },
  {
    agent_id: 'B',
    model_name: 'anthropic/claude-3-5-sonnet',
    provider_id: 'anthropic',
    is_online: true,
    capability_tags: [],
  },
  { agent_id: 'C', model_name: 'gpt-4o-mini', provider_id: 'openai', is_online: true, capability_tags: [] },
];

describe('ballots, agreement and trust from /details (docs/ndjson.md §4b)', () => {
  const v = deriveVerdict({ rounds, reasoning: '', details, agents });

  it('Fleiss kappa over the real evaluators equals the hand-computed table', () => {
    expect(v.trust.agreement).toBe(0.2683);
  });

  it('counts real endorsements of the chosen proposal, leaving the synthetic stand-in out', () => {
    expect(v.trust.endorse).toEqual({ count: 2, of: 3 });
  });

  it('gives the synthetic share of the final round and of the whole deliberation', () => {
    // Round 2: 6 evaluations, 2 synthetic; all rounds: 8 evaluations, 2 synthetic.
    expect(v.trust.synthetic_share).toEqual({ final: 0.3333, all: 0.25 });
    expect(v.trust.decisiveness).toBe(0.55);
  });

  it('names the dissenters by their stance, with the position they took', () => {
    expect(v.dissent).toEqual([{ agent: 'D', stance: 'disagree', reason: 'c2 ignores retries' }]);
  });

  it("keeps each evaluator's ballot on the chosen proposal and the final round's matrix", () => {
    expect(v.ballots?.round).toBe(2);
    expect(v.ballots?.chosen.map((b) => [b.evaluator, b.stance, b.synthetic])).toEqual([
      ['B', 'strong_agree', null],
      ['C', 'agree', null],
      ['D', 'disagree', null],
      ['E', 'agree', true],
    ]);
    expect(v.ballots?.matrix).toHaveLength(6);
    expect(v.ballots?.matrix.filter((c) => c.target === 'B').map((c) => c.evaluator)).toEqual(['A', 'E']);
  });

  it('reads the diversity of the council from /agents: model families and providers', () => {
    expect(v.trust.diversity).toEqual({ families: ['claude', 'gpt'], providers: ['anthropic', 'openai'] });
    expect(familyOf('llama3.1-70b')).toBe('llama');
  });

  it('lists a claim the server sent twice once, with its worst verdict', () => {
    expect(v.claims?.chosen?.wrong.map((c) => c.claim)).toEqual(['c1']);
    expect(v.claims?.chosen?.verified.map((c) => c.claim)).toEqual(['c2']);
    expect(v.claims?.chosen_counts).toMatchObject({ verified: 1, wrong: 1 });
  });

  it('shows the path: the lead changed in round 2, and the runner-up verified a claim the chosen one dropped', () => {
    expect(v.trajectory?.lead_changes).toEqual([2]);
    expect(v.trajectory?.dropped_claims).toEqual([{ claim: 'retries are bounded', agent: 'B' }]);
  });

  it('a failed turn names no chosen agent, and so no ballots', () => {
    const failed = deriveVerdict({ rounds, reasoning: '', details, agents, failed: true });
    expect(failed.chosen).toBeNull();
    expect(failed.runner_up).toBeNull();
    expect(failed.ballots).toBeNull();
    expect(failed.scores).toEqual({ A: 0.7, B: 0.35 });
  });
});

describe('what a server without ballots leaves', () => {
  it('no /details: ballots, dissent, endorsement and agreement are null, never 0', () => {
    const v = deriveVerdict({ rounds, reasoning: '', details: null, agents: null });
    expect(v.ballots).toBeNull();
    expect(v.dissent).toBeNull();
    expect(v.trust).toMatchObject({ endorse: null, agreement: null, synthetic_share: { final: null, all: null } });
    expect(v.trust.diversity).toBeNull();
  });

  it('a /details answer of the wrong shape is no details; hostile sizes are capped', () => {
    expect(parseDetails({ history: 'no' })).toBeNull();
    expect(parseDetails([])).toBeNull();
    const huge = parseDetails({
      history: Array.from({ length: 5000 }, (_, i) => ({ round: 1, author_agent_id: `a${i}`, evaluations: [] })),
    });
    expect(huge?.entries).toHaveLength(2000);
  });

  it('under two real evaluators there is no agreement to compute', () => {
    const one: Ballot = {
      evaluator: 'A',
      stance: 'agree',
      score: 1,
      synthetic: false,
      claims: [{ claim: 'x', verdict: 'verified' }],
      disagreements: [],
      reason: null,
    };
    expect(fleissKappa([one])).toBeNull();
    expect(fleissKappa([one, { ...one, evaluator: 'B', synthetic: true }])).toBeNull();
    // Unanimous on every claim: perfect agreement.
    expect(fleissKappa([one, { ...one, evaluator: 'B' }])).toBe(1);
  });
});

describe('gates on trust (docs/ndjson.md §4c)', () => {
  const v = deriveVerdict({ rounds, reasoning: 'Round 2 complete — convergence: 90%', details, agents });

  it.each([
    ['min-agreement', 0.25, 'pass'],
    ['min-agreement', 0.3, 'fail'],
    ['min-endorse', 2, 'pass'],
    ['min-endorse', 3, 'fail'],
    ['min-endorse-share', 0.6, 'pass'],
    ['min-endorse-share', 0.7, 'fail'],
    ['max-synthetic', 0.34, 'pass'],
    ['max-synthetic', 0.3, 'fail'],
  ] as const)('%s %s: %s', (name, expected, status) => {
    expect(judgeGates(v, { [name]: expected }).status).toBe(status);
  });

  it('a convergence gate on a final round above --max-synthetic is inconclusive with its reason, never a pass', () => {
    expect(judgeGates(v, { 'min-convergence': 0.8 }).status).toBe('pass');
    const strict = judgeGates(v, { 'min-convergence': 0.8, 'max-synthetic': 0.3 });
    expect(strict.checks[0]).toMatchObject({
      name: 'min-convergence',
      status: 'inconclusive',
      reason: 'synthetic_votes',
    });
    // The max-synthetic check itself fails, and a failure beats inconclusive.
    expect(strict.status).toBe('fail');
    const standIns = deriveVerdict({
      rounds,
      reasoning: 'Round 2 complete — convergence: 90%',
      details: parseDetails({
        history: [
          {
            round: 1,
            author_agent_id: 'A',
            evaluations: [
              evaluation('B', 0.9, 'agree', [], { synthetic: true }),
              evaluation('C', 0.9, 'agree', [], { synthetic: true }),
              evaluation('D', 0.9, 'agree', []),
            ],
          },
        ],
      }),
    });
    expect(judgeGates(standIns, { 'min-convergence': 0.8 })).toEqual({
      status: 'inconclusive',
      reason: 'synthetic_votes',
      checks: [
        { name: 'min-convergence', expected: 0.8, actual: 0.9, status: 'inconclusive', reason: 'synthetic_votes' },
      ],
    });
  });

  it('an unreported value is inconclusive with reason not_reported', () => {
    const bare = deriveVerdict({ rounds, reasoning: '' });
    expect(judgeGates(bare, { 'min-agreement': 0.2 })).toMatchObject({
      status: 'inconclusive',
      reason: 'not_reported',
    });
  });
});

describe('a verdict read back from a file', () => {
  it('upgrades a version 1 record: its score-gap dissent becomes unknown, trust unknown', () => {
    const v1 = {
      v: 1,
      rounds: { completed: 1, planned: 1 },
      convergence: { per_round: [], final: null, held: null },
      chosen: { agent: 'A', score: 0.5, source: 'last_round' },
      runner_up: null,
      margin: null,
      scores: { A: 0.5 },
      claims: { chosen: null, chosen_counts: null, all_counts: null },
      dissent: ['B'],
    };
    const v = readVerdict(v1);
    expect(v).toMatchObject({ v: 2, claims: null, dissent: null, ballots: null, convergence: { per_round: null } });
    expect(v?.trust.agreement).toBeNull();
    expect(readVerdict({ ...v1, v: 3 })).toBeNull();
    expect(readVerdict({ ...v1, margin: 'big' })).toBeNull();
  });
});

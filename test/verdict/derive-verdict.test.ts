import { describe, expect, it } from 'vitest';
import { createNativeProcessor } from '../../src/api/native-processor.js';
import type { StreamEvent } from '../../src/events/events.js';
import type { CouncilDetails } from '../../src/protocol/details.js';
import type { Candidate, Claim, NsedRound } from '../../src/protocol/wire.js';
import { applyEvent, emptyTranscript } from '../../src/events/transcript.js';
import { deriveVerdict, judgeGates, type CouncilVerdict } from '../../src/council/verdict.js';

const claim = (text: string, verdict: Claim['verdict'], reason?: string): Claim =>
  reason === undefined ? { claim: text, verdict } : { claim: text, verdict, reason };

const cand = (agent_id: string, score: number, claims: Claim[] = []): Candidate => ({
  agent_id,
  score,
  content_preview: `${agent_id} proposes`,
  thought_preview: '',
  claims,
});

const round = (n: number, candidates: Candidate[], extra: Partial<NsedRound> = {}): NsedRound => ({
  round: n,
  total_rounds: 3,
  progress: n / 3,
  scored: true,
  candidates,
  ...extra,
});

/** A `/details` answer that carries only its per-round summaries. */
const detailsWith = (rounds: Array<{ round: number; convergence: number | null }>): CouncilDetails => ({
  entries: [],
  rounds: rounds.map((r) => ({ ...r, decisiveness: null, controversy: new Map() })),
  finalAuthor: null,
  finalScore: null,
  totalRounds: null,
});

const lastRound = round(3, [
  cand('A', 0.8, [claim('sorts in O(n log n)', 'verified', 'textbook'), claim('no locks needed', 'wrong', 'races')]),
  cand('B', 0.75, [claim('handles empty input', 'contested')]),
  cand('C', 0.4, [claim('fast', 'unverified')]),
]);

describe('the verdict from compat rounds and the reasoning milestone (docs/ndjson.md, the verdict)', () => {
  const v = deriveVerdict({
    rounds: [
      round(1, [cand('A', 0.3), cand('B', 0.5)], { scored: false }),
      round(1, [cand('A', 0.3), cand('B', 0.5)]),
      round(2, [cand('A', 0.6), cand('B', 0.55)]),
      lastRound,
    ],
    reasoning: [
      'Round 1/3 — proposals from A, B, C',
      'Round 1 complete — convergence: 45%',
      'Round 2 complete — convergence: 81%',
      'Round 3 complete — convergence: 81%',
    ].join('\n'),
  });

  it('takes rounds and convergence per round, final and how long it held', () => {
    expect(v.v).toBe(2);
    expect(v.rounds).toEqual({ completed: 3, planned: 3 });
    expect(v.convergence).toEqual({
      per_round: [
        { round: 1, value: 0.45 },
        { round: 2, value: 0.81 },
        { round: 3, value: 0.81 },
      ],
      final: 0.81,
      held: 2,
    });
  });

  it('chooses the top candidate of the last scored round, with the runner-up and the margin', () => {
    expect(v.chosen).toEqual({ agent: 'A', score: 0.8, source: 'last_round' });
    expect(v.runner_up).toEqual({ agent: 'B', score: 0.75 });
    // 0.8 - 0.75 is 0.05000000000000004 in floating point: rounded, so a --min-margin 0.05 passes.
    expect(v.margin).toBe(0.05);
    expect(v.scores).toEqual({ A: 0.8, B: 0.75, C: 0.4 });
  });

  it("groups the chosen proposal's claims by verdict, with counts, and counts over all candidates", () => {
    expect(v.claims?.chosen).toEqual({
      verified: [{ claim: 'sorts in O(n log n)', reason: 'textbook' }],
      contested: [],
      unverified: [],
      wrong: [{ claim: 'no locks needed', reason: 'races' }],
      unknown: [],
    });
    expect(v.claims?.chosen_counts).toEqual({ verified: 1, contested: 0, unverified: 0, wrong: 1, unknown: 0 });
    expect(v.claims?.all_counts).toEqual({ verified: 1, contested: 1, unverified: 1, wrong: 1, unknown: 0 });
  });

  it('names no dissent from scores: without ballots, stances are unknown', () => {
    expect(v.dissent).toBeNull();
    expect(v.ballots).toBeNull();
  });

  it('follows the leader round by round: the lead changed in round 2, convergence settled in round 2', () => {
    expect(v.trajectory).toEqual({
      leaders: [
        { round: 1, agent: 'B' },
        { round: 2, agent: 'A' },
        { round: 3, agent: 'A' },
      ],
      lead_changes: [2],
      settled_round: 2,
      dropped_claims: [],
    });
  });
});

describe('the verdict with each source missing: null, never guessed', () => {
  it('nothing reported at all', () => {
    expect(deriveVerdict({ rounds: [], reasoning: '' })).toEqual({
      v: 2,
      rounds: { completed: null, planned: null },
      convergence: { per_round: null, final: null, held: null },
      chosen: null,
      runner_up: null,
      margin: null,
      scores: null,
      claims: null,
      dissent: null,
      ballots: null,
      trust: {
        endorse: null,
        agreement: null,
        synthetic_share: { final: null, all: null },
        decisiveness: null,
        controversy: null,
        diversity: null,
      },
      trajectory: null,
    } satisfies CouncilVerdict);
  });

  it('rounds without milestones and details without rounds: convergence null, the rest from the rounds', () => {
    const v = deriveVerdict({ rounds: [lastRound], reasoning: 'Consensus reached', details: detailsWith([]) });
    expect(v.convergence).toEqual({ per_round: null, final: null, held: null });
    expect(v.chosen?.agent).toBe('A');
  });

  it('rounds whose candidates carry no claims (the native stream has none): claims null', () => {
    const v = deriveVerdict({ rounds: [round(1, [cand('A', 0.9), cand('B', 0.2)])], reasoning: null });
    expect(v.claims).toBeNull();
    expect(judgeGates(v, { 'max-wrong': 0 }).status).toBe('inconclusive');
  });

  it('a single candidate: no runner-up, so no margin', () => {
    const v = deriveVerdict({ rounds: [round(1, [cand('A', 0.9)])], reasoning: '' });
    expect(v.runner_up).toBeNull();
    expect(v.margin).toBeNull();
    expect(v.dissent).toBeNull();
  });
});

describe("convergence from /details' rounds when the stream's words differ (the strict profile)", () => {
  const milestones = 'Round 1 complete — convergence: 10%\nRound 3 complete — convergence: 20%';
  const detailed = detailsWith([
    { round: 1, convergence: 0.46 },
    { round: 2, convergence: null },
    { round: 3, convergence: 0.87 },
  ]);

  it('reads rounds[].convergence_score where no milestone is worded as the seed words it', () => {
    const v = deriveVerdict({
      rounds: [lastRound],
      reasoning: 'Scored round 3 of 3; agreement 0.87',
      details: detailed,
    });
    expect(v.convergence).toEqual({
      per_round: [
        { round: 1, value: 0.46 },
        { round: 3, value: 0.87 },
      ],
      final: 0.87,
      held: 1,
    });
    expect(judgeGates(v, { 'min-convergence': 0.8 }).status).toBe('pass');
  });

  it('ranks /details above the milestones, and the native round summaries above both', () => {
    expect(deriveVerdict({ rounds: [lastRound], reasoning: milestones, details: detailed }).convergence.final).toBe(
      0.87,
    );
    const native = deriveVerdict({
      rounds: [round(3, lastRound.candidates, { convergence: 0.5 })],
      reasoning: milestones,
      details: detailed,
    });
    expect(native.convergence.per_round).toEqual([{ round: 3, value: 0.5 }]);
  });

  it('falls back to the milestones when /details reports no round convergence', () => {
    const v = deriveVerdict({
      rounds: [lastRound],
      reasoning: milestones,
      details: detailsWith([{ round: 3, convergence: null }]),
    });
    expect(v.convergence.final).toBe(0.2);
  });
});

describe('the verdict from nsed_finalized (a pick) and from the native structured fields', () => {
  it('nsed_finalized names the chosen agent, scored from the last round', () => {
    const v = deriveVerdict({
      rounds: [lastRound],
      reasoning: '',
      finalized: { chosen_agent_id: 'B', round: 3 },
    });
    expect(v.chosen).toEqual({ agent: 'B', score: 0.75, source: 'finalized' });
    expect(v.runner_up).toEqual({ agent: 'A', score: 0.8 });
    expect(v.margin).toBe(-0.05);
    expect(v.claims?.chosen_counts?.contested).toBe(1);
  });

  it('round_summary and job_complete, through the native processor and the transcript, beat the milestone text', () => {
    const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    const stream = [
      frame('round_start', { round: 1, total_rounds: 4 }),
      frame('proposal_submitted', { round: 1, agent_id: 'A', content: 'a', thought_process: '' }),
      frame('proposal_submitted', { round: 1, agent_id: 'B', content: 'b', thought_process: '' }),
      frame('round_summary', {
        round: 1,
        convergence_score: 0.55,
        proposal_scores: [
          { agent_id: 'A', aggregated_score: 0.4 },
          { agent_id: 'B', aggregated_score: 0.7 },
        ],
      }),
      frame('round_summary', {
        round: 2,
        convergence_score: 0.905,
        proposal_scores: [
          { agent_id: 'A', aggregated_score: 0.45 },
          { agent_id: 'B', aggregated_score: 0.72 },
        ],
      }),
      frame('job_complete', {
        status: 'Success',
        rounds_completed: 2,
        total_rounds: 4,
        best_proposal_content: 'b',
        best_proposal_score: 0.71,
        best_proposal_author: 'B',
      }),
    ].join('');
    const events: StreamEvent[] = [];
    const p = createNativeProcessor();
    p.push(new TextEncoder().encode(stream), events);
    const t = events.reduce(applyEvent, emptyTranscript());
    // A misleading milestone, as a server's prose might be: the structured value wins.
    const v = deriveVerdict({ ...t, reasoning: `${t.reasoning}\nRound 2 complete — convergence: 10%` });
    expect(v.convergence).toEqual({
      per_round: [
        { round: 1, value: 0.55 },
        { round: 2, value: 0.905 },
      ],
      final: 0.905,
      held: 1,
    });
    expect(v.chosen).toEqual({ agent: 'B', score: 0.71, source: 'job_complete' });
    expect(v.rounds).toEqual({ completed: 2, planned: 4 });
    expect(v.runner_up).toEqual({ agent: 'A', score: 0.45 });
    expect(v.margin).toBe(0.26);
  });
});

describe('judgeGates: AND over the checks; a fail beats inconclusive', () => {
  const v = deriveVerdict({ rounds: [lastRound], reasoning: 'Round 3 complete — convergence: 80%' });

  it.each([
    ['min-convergence', 0.8, 'pass'],
    ['min-convergence', 0.81, 'fail'],
    ['max-wrong', 1, 'pass'],
    ['max-wrong', 0, 'fail'],
    ['max-contested', 0, 'pass'],
    ['min-score', 0.8, 'pass'],
    ['min-score', 0.9, 'fail'],
    ['min-margin', 0.05, 'pass'],
    ['min-margin', 0.06, 'fail'],
  ] as const)('%s %s: %s', (name, expected, status) => {
    expect(judgeGates(v, { [name]: expected })).toEqual({
      status,
      checks: [{ name, expected, actual: expect.any(Number), status }],
    });
  });

  it('a null value is inconclusive; any failure fails the whole', () => {
    const bare = deriveVerdict({ rounds: [lastRound], reasoning: '' });
    expect(judgeGates(bare, { 'min-convergence': 0.5, 'max-wrong': 5 }).status).toBe('inconclusive');
    const both = judgeGates(bare, { 'min-convergence': 0.5, 'min-score': 0.99 });
    expect(both.status).toBe('fail');
    expect(both.checks.map((c) => [c.name, c.actual, c.status])).toEqual([
      ['min-convergence', null, 'inconclusive'],
      ['min-score', 0.8, 'fail'],
    ]);
    expect(judgeGates(bare, {})).toEqual({ status: 'pass', checks: [] });
  });
});

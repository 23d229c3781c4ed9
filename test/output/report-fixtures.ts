// Hand-built report inputs: a turn, verdicts with every field set and with every field null,
// and gate results, so the report renderers are tested apart from how a verdict is derived.
import type { Candidate, Claim, NsedRound } from '../../src/protocol/wire.js';
import type { Session, Turn } from '../../src/session/model.js';
import type { ReportTurn } from '../../src/output/export/report-turn.js';
import type { CouncilVerdict, GateResult, VerdictClaim } from '../../src/council/verdict.js';

export const claim = (text: string, verdict: Claim['verdict'], reason?: string): Claim =>
  reason === undefined ? { claim: text, verdict } : { claim: text, verdict, reason };

export function candidate(agent: string, score: number, claims: Claim[] = []): Candidate {
  return { agent_id: agent, score, content_preview: `${agent} proposes`, thought_preview: '', claims };
}

export function round(n: number, total: number, candidates: Candidate[]): NsedRound {
  return { round: n, total_rounds: total, progress: n / total, scored: true, candidates };
}

export const reportTurn = (over: Partial<ReportTurn> = {}): ReportTurn => ({
  session: '20261201-abc',
  title: 'Is the migration plan safe?',
  saved: true,
  turn: 't2',
  question: 'Is the migration plan safe?',
  answer: 'Yes, with a rollback step.\n\n```sh\nmigrate --dry-run\n```\n',
  status: 'complete',
  error: null,
  policy: 'nsed:deep',
  jobId: 'job-42',
  ts: '2026-12-01T09:00:00.000Z',
  seconds: 8.25,
  rounds: [
    round(1, 2, [candidate('CortexA', 0.61, [claim('a', 'contested')]), candidate('CortexB', 0.55)]),
    round(2, 2, [
      candidate('CortexA', 0.82, [claim('a', 'verified')]),
      candidate('CortexB', 0.75, [claim('b', 'wrong')]),
    ]),
  ],
  injections: [{ message: 'mind the rollback', round: 1, sequence: 1 }],
  toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"x":2}', result: '4', status: 'ok', exit_code: 0 }],
  usage: { input_tokens: 6932, output_tokens: 2727, cost_usd: 0.0272528, cost_source: 'reported' },
  sessionUsage: { input_tokens: 6932, output_tokens: 2727, cost_usd: 0.0272528, unknown_cost_turns: 0, turns: 1 },
  ...over,
});

const group = (wrong: VerdictClaim[], contested: VerdictClaim[], verified: VerdictClaim[] = []) => ({
  verified,
  contested,
  unverified: [],
  wrong,
  unknown: [],
});

export const fullVerdict = (over: Partial<CouncilVerdict> = {}): CouncilVerdict => ({
  v: 2,
  rounds: { completed: 2, planned: 2 },
  convergence: {
    per_round: [
      { round: 1, value: 0.62 },
      { round: 2, value: 0.81 },
    ],
    final: 0.81,
    held: 1,
  },
  chosen: { agent: 'CortexA', score: 0.82, source: 'job_complete' },
  runner_up: { agent: 'CortexB', score: 0.75 },
  margin: 0.07,
  scores: { CortexA: 0.82, CortexB: 0.75 },
  claims: {
    chosen: group(
      [{ claim: 'The table has no index', reason: 'it has one since v2' }],
      [{ claim: 'Downtime is zero', reason: null }],
      [{ claim: 'The rollback works', reason: 'tested' }],
    ),
    chosen_counts: { verified: 1, contested: 1, unverified: 0, wrong: 1, unknown: 0 },
    all_counts: { verified: 1, contested: 1, unverified: 0, wrong: 2, unknown: 0 },
  },
  dissent: [{ agent: 'CortexB', stance: 'disagree', reason: 'the index exists' }],
  ballots: {
    round: 2,
    chosen: [
      {
        evaluator: 'CortexB',
        stance: 'disagree',
        score: -0.2,
        synthetic: false,
        claims: [],
        disagreements: [],
        reason: 'the index exists',
      },
      {
        evaluator: 'CortexC',
        stance: 'agree',
        score: 0.8,
        synthetic: true,
        claims: [],
        disagreements: [],
        reason: null,
      },
    ],
    matrix: [
      { evaluator: 'CortexB', target: 'CortexA', score: -0.2, stance: 'disagree', synthetic: false },
      { evaluator: 'CortexC', target: 'CortexA', score: 0.8, stance: 'agree', synthetic: true },
      { evaluator: 'CortexA', target: 'CortexB', score: 0.5, stance: 'neutral', synthetic: false },
    ],
  },
  trust: {
    endorse: { count: 0, of: 1 },
    agreement: null,
    synthetic_share: { final: 0.3333, all: 0.2 },
    decisiveness: 0.4,
    controversy: null,
    diversity: { families: ['claude', 'gpt'], providers: ['anthropic', 'openai'] },
  },
  trajectory: {
    leaders: [
      { round: 1, agent: 'CortexB' },
      { round: 2, agent: 'CortexA' },
    ],
    lead_changes: [2],
    settled_round: 2,
    dropped_claims: [],
  },
  ...over,
});

/** A verdict where the server reported nothing: every field null (per_round empty). */
export const nullVerdict: CouncilVerdict = {
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
};

export const passingGate: GateResult = {
  status: 'pass',
  checks: [
    { name: 'min-convergence', expected: 0.8, actual: 0.81, status: 'pass' },
    { name: 'max-wrong', expected: 1, actual: 1, status: 'pass' },
  ],
};

export const failingGate: GateResult = {
  status: 'fail',
  checks: [
    { name: 'min-convergence', expected: 0.9, actual: 0.81, status: 'fail' },
    { name: 'max-wrong', expected: 0, actual: 1, status: 'fail' },
    { name: 'max-contested', expected: 3, actual: 1, status: 'pass' },
    { name: 'min-margin', expected: 0.05, actual: null, status: 'inconclusive' },
  ],
};

/** A stored session around one question and one answer turn (with `extra` fields on the answer). */
export function sessionWith(answer: Partial<Turn> = {}, extra: Turn[] = []): Session {
  const ts = '2026-12-01T09:00:00.000Z';
  return {
    version: 1,
    id: '20261201-abc',
    title: 'migration',
    created: ts,
    updated: ts,
    active_policy: 'nsed:deep',
    orchestrator: 'http://127.0.0.1:9',
    conversation_id: 'conv',
    turns: [
      { id: 't1', role: 'user', kind: 'message', content: 'Is the migration plan safe?', status: 'complete', ts },
      ...extra,
      {
        id: 't2',
        role: 'assistant',
        kind: 'message',
        content: 'Yes.',
        status: 'complete',
        ts,
        policy_id: 'nsed:deep',
        job_id: 'job-42',
        ...answer,
      },
    ],
  };
}

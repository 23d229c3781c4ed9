import type { Candidate, Claim, Verdict } from '../protocol/wire.js';
import type { Angle } from './agents.js';
import {
  CLAIMS,
  DETAILS,
  EXTRA_CLAIMS,
  EXTRA_OBJECTIONS,
  JUSTIFICATIONS,
  OBJECTIONS,
  OPENERS,
  REASONS,
  THOUGHTS,
  TRADEOFFS,
} from './phrases.js';
import type { TokenUsage } from './metering.js';
import { type Rng, rngFor } from './rng.js';
import { type TextContext, fill, shorten } from './text-context.js';

export interface CouncilMember {
  id: string;
  angle: Angle;
}

export interface CouncilInput {
  /** Seeds every random choice: the server seed, the policy and the task. */
  key: string;
  text: TextContext;
  members: CouncilMember[];
  totalRounds: number;
  /** Fault `evaluator-timeout=AGENT`: this evaluator times out every round; stand-ins replace its evaluations. */
  timedOut?: string;
}

/** What steers later proposals: injected guidance and tool results, added as text only. */
export interface Influences {
  guidance: string[];
  toolResults: Array<{ name: string; content: string }>;
}

export interface Proposal {
  agent_id: string;
  content: string;
  thought_process: string;
  claims: string[];
  /** The proposal's concrete advice, quoted in the final answer. */
  advice: string;
  /** What writing it used, when the server reports it (set as the job is metered). */
  token_usage?: TokenUsage;
}

/** How an evaluator stands toward a proposal (docs/protocol.md §3.5). */
export type Stance = 'strong_agree' | 'agree' | 'neutral' | 'disagree' | 'strong_disagree';

/** Where an evaluator parts from a proposal: the claims it disputes, its own position, how sure it is. */
export interface Disagreement {
  proposal_claims: string[];
  evaluator_position: string;
  confidence: 'high' | 'medium' | 'low';
}

export interface Evaluation {
  evaluator_agent_id: string;
  target_id: string;
  score: number;
  justification: string;
  claim_assessments: Claim[];
  stance: Stance;
  disagreements: Disagreement[];
  /** A stand-in the orchestrator injected because the evaluator timed out. */
  synthetic: boolean;
  /** What making it used, when the server reports it (set as the job is metered). */
  token_usage?: TokenUsage;
}

/** Per proposal: its score from the real evaluations, how split they were, and how many were real or stand-ins. */
export interface ProposalScore {
  agent_id: string;
  score: number;
  /** The population standard deviation of its real evaluations' scores (0 when fewer than two). */
  controversy: number;
  real: number;
  synthetic: number;
}

/** How far the council's claims are settled: the share of distinct claims whose worst verdict is `verified`. */
export interface ClaimConvergence {
  claim_convergence: number | null;
  total_claims: number;
  leader_claim_convergence: number | null;
  leader_total_claims: number;
}

export interface RoundOutcome {
  round: number;
  proposals: Proposal[];
  evaluations: Evaluation[];
  scores: ProposalScore[];
  claims: ClaimConvergence;
  candidates: Candidate[];
  convergence: number;
  decisiveness: number;
  leader: string;
}

/** Severity for worst-verdict-wins; `unknown` ranks between unverified and verified. */
const SEVERITY: Record<Verdict, number> = { wrong: 4, contested: 3, unverified: 2, unknown: 1, verified: 0 };

/**
 * Collapses duplicate claims across evaluators so the worst verdict wins (a dissent is never
 * hidden behind a later approval), worst first, at most `cap`.
 */
export function mergeClaims(assessments: readonly Claim[], cap = 8): Claim[] {
  const merged = new Map<string, Claim>();
  for (const a of assessments) {
    const seen = merged.get(a.claim);
    if (!seen || SEVERITY[a.verdict] > SEVERITY[seen.verdict]) merged.set(a.claim, { ...a });
  }
  return [...merged.values()].sort((x, y) => SEVERITY[y.verdict] - SEVERITY[x.verdict]).slice(0, cap);
}

const round2 = (n: number): number => Math.round(n * 100) / 100;
const clamp = (n: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, n));

function verdictFrom(rng: Rng): Verdict {
  const r = rng.next();
  if (r < 0.5) return 'verified';
  if (r < 0.68) return 'unverified';
  if (r < 0.75) return 'unknown';
  if (r < 0.9) return 'contested';
  return 'wrong';
}

function chooseClaims(rng: Rng, templates: readonly string[], count: number): string[] {
  const pool = [...templates];
  const out: string[] = [];
  while (out.length < count && pool.length > 0) out.push(pool.splice(rng.int(pool.length), 1)[0] ?? '');
  return out;
}

export function propose(
  input: CouncilInput,
  round: number,
  influences: Influences,
  previous?: RoundOutcome,
): Proposal[] {
  const t = input.text;
  return input.members.map((m) => {
    const rng = rngFor(input.key, 'propose', round, m.id);
    const parts: string[] = [];
    if (previous) {
      const lead = previous.candidates.find((c) => c.agent_id === previous.leader);
      const point = lead?.claims.find((c) => c.verdict === 'verified')?.claim;
      parts.push(
        previous.leader === m.id || point === undefined
          ? `Round ${round}: keeping the core of my position after the evaluations.`
          : `Round ${round}: I take ${previous.leader}'s point that ${point}.`,
      );
    }
    const advice = fill(rng.pick(DETAILS[m.angle]), t);
    parts.push(fill(rng.pick(OPENERS[m.angle]), t), advice);
    for (const g of influences.guidance)
      parts.push(`Following the guidance “${shorten(g, 120)}”, I now put it first and judge ${t.t1} in that light.`);
    for (const r of influences.toolResults)
      parts.push(
        `The ${r.name} tool returned “${shorten(r.content, 120)}”, which settles the open question about ${t.t1}.`,
      );
    parts.push(fill(rng.pick(TRADEOFFS[m.angle]), t));
    const thought_process = fill(rng.pick(THOUGHTS[m.angle]), t);
    const claims = chooseClaims(rng, CLAIMS[m.angle], 3);
    // A separate stream, so the extra claims leave every other choice of the seed as it was.
    const extra = rngFor(input.key, 'extra-claims', round, m.id);
    if (extra.chance(0.3)) claims.push(...chooseClaims(extra, EXTRA_CLAIMS, 1 + extra.int(3)));
    return { agent_id: m.id, content: parts.join(' '), thought_process, claims: claims.map((c) => fill(c, t)), advice };
  });
}

const quality = (input: CouncilInput, agent: string): number => rngFor(input.key, 'quality', agent).range(0.05, 0.55);

/**
 * How hard each evaluator is to please in a round, subtracted from its scores before its stances
 * are read off. Each round of a council of three or more, one member other than the round's
 * leader (picked from the seed) is the sceptic, with a bar of 0.55, so some evaluator doubts even the proposal the others endorse;
 * within a round every evaluator's stance rises with its score.
 */
function strictnessOf(input: CouncilInput, round: number, leader: string): (evaluator: string) => number {
  const others = input.members.map((m) => m.id).filter((id) => id !== leader);
  // A council of two has no sceptic: its only other evaluator would then always dissent.
  const sceptic =
    input.members.length < 3 ? undefined : others[rngFor(input.key, 'sceptic', round).int(Math.max(1, others.length))];
  return (evaluator) => (evaluator === sceptic ? 0.55 : rngFor(input.key, 'strictness', evaluator).range(0, 0.15));
}

/** The stance a score means to an evaluator of this strictness (documented in README: the simulator). */
export function stanceOf(score: number, strict: number): Stance {
  const a = score - strict;
  if (a >= 0.7) return 'strong_agree';
  if (a >= 0.45) return 'agree';
  if (a >= 0.3) return 'neutral';
  if (a >= 0.1) return 'disagree';
  return 'strong_disagree';
}

const CONFIDENCE: ReadonlyArray<Disagreement['confidence']> = ['high', 'medium', 'low'];

/**
 * The evaluator's disagreements: each claim it judged contested or wrong, with its reason as its
 * position; an evaluator that disagrees overall but disputes no claim names the proposal's first.
 */
function disagreementsOf(claims: readonly Claim[], stance: Stance, rng: Rng, t: TextContext): Disagreement[] {
  const out: Disagreement[] = claims
    .filter((c) => c.verdict === 'contested' || c.verdict === 'wrong')
    .map((c) => ({
      proposal_claims: [c.claim],
      evaluator_position: c.reason ?? 'not supported by the proposal',
      confidence: c.verdict === 'wrong' ? 'high' : (CONFIDENCE[1 + rng.int(2)] ?? 'medium'),
    }));
  const first = claims[0];
  if (out.length === 0 && (stance === 'disagree' || stance === 'strong_disagree') && first !== undefined)
    out.push({
      proposal_claims: [first.claim],
      evaluator_position: fill(`the case for {t1} is weaker than this proposal assumes`, t),
      confidence: stance === 'strong_disagree' ? 'high' : 'medium',
    });
  return out;
}

/** The stand-in for a timed-out evaluator: neutral, no claims judged, marked synthetic. */
const syntheticEvaluation = (evaluator: string, target: string): Evaluation => ({
  evaluator_agent_id: evaluator,
  target_id: target,
  score: 0,
  justification: 'evaluator timed out; neutral stand-in evaluation injected',
  claim_assessments: [],
  stance: 'neutral',
  disagreements: [],
  synthetic: true,
});

const stdev = (xs: readonly number[]): number => {
  if (xs.length < 2) return 0;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / xs.length);
};

/** The share of these merged claims that are verified; null when there are none. */
const verifiedShare = (claims: readonly Claim[]): number | null =>
  claims.length === 0 ? null : round2(claims.filter((c) => c.verdict === 'verified').length / claims.length);

export function evaluate(input: CouncilInput, round: number, proposals: readonly Proposal[]): RoundOutcome {
  const t = input.text;
  const evaluations: Evaluation[] = [];
  for (const target of proposals) {
    for (const evaluator of input.members) {
      if (evaluator.id === target.agent_id) continue;
      if (evaluator.id === input.timedOut) {
        evaluations.push(syntheticEvaluation(evaluator.id, target.agent_id));
        continue;
      }
      const rng = rngFor(input.key, 'evaluate', round, evaluator.id, target.agent_id);
      const score = round2(
        clamp(quality(input, target.agent_id) + (0.25 * round) / input.totalRounds + rng.range(-0.15, 0.15), -1, 1),
      );
      // The first three claims on the seed's main stream (as always); extra ones on their own.
      const second = rngFor(input.key, 'evaluate-extra', round, evaluator.id, target.agent_id);
      const claim_assessments: Claim[] = target.claims.map((claim, i) => {
        const r = i < 3 ? rng : second;
        const verdict = verdictFrom(r);
        return { claim, verdict, reason: fill(r.pick(REASONS[verdict]), t) };
      });
      if (rng.chance(0.3)) {
        claim_assessments.push({
          claim: fill(rng.pick(OBJECTIONS), t),
          verdict: 'contested',
          reason: fill(rng.pick(REASONS.contested), t),
        });
      }
      if (second.chance(0.25)) {
        const verdict = second.chance(0.5) ? 'wrong' : 'contested';
        claim_assessments.push({
          claim: fill(second.pick(EXTRA_OBJECTIONS), t),
          verdict,
          reason: fill(second.pick(REASONS[verdict]), t),
        });
      }
      evaluations.push({
        evaluator_agent_id: evaluator.id,
        target_id: target.agent_id,
        score,
        justification: fill(rng.pick(JUSTIFICATIONS), t),
        claim_assessments,
        // Read off once the round's leader is known (below).
        stance: 'neutral',
        disagreements: [],
        synthetic: false,
      });
    }
  }
  // A stand-in moves no score: a proposal's score is the mean of its real evaluations.
  const scores: ProposalScore[] = proposals.map((p) => {
    const mine = evaluations.filter((e) => e.target_id === p.agent_id);
    const real = mine.filter((e) => !e.synthetic).map((e) => e.score);
    const mean = real.length === 0 ? 0 : real.reduce((s, x) => s + x, 0) / real.length;
    return {
      agent_id: p.agent_id,
      score: round2(mean),
      controversy: round2(stdev(real)),
      real: real.length,
      synthetic: mine.length - real.length,
    };
  });
  const ranked = [...scores].sort((a, b) => b.score - a.score);
  const top = ranked[0]?.score ?? 0;
  const second = ranked[1]?.score ?? top;
  const spread = top - (ranked[ranked.length - 1]?.score ?? top);
  const convergence = round2(
    clamp(
      0.3 +
        (0.6 * round) / input.totalRounds -
        spread * 0.2 +
        rngFor(input.key, 'convergence', round).range(-0.05, 0.05),
      0.05,
      0.99,
    ),
  );
  const leader = ranked[0]?.agent_id ?? '';
  const bar = strictnessOf(input, round, leader);
  for (const e of evaluations) {
    if (e.synthetic) continue;
    e.stance = stanceOf(e.score, bar(e.evaluator_agent_id));
    // Its own stream, so the stances leave every other choice of the seed as it was.
    const doubt = rngFor(input.key, 'disagreements', round, e.evaluator_agent_id, e.target_id);
    e.disagreements = disagreementsOf(e.claim_assessments, e.stance, doubt, t);
  }
  const allClaims = mergeClaims(
    evaluations.flatMap((e) => e.claim_assessments),
    Infinity,
  );
  const leaderClaims = mergeClaims(
    evaluations.filter((e) => e.target_id === leader).flatMap((e) => e.claim_assessments),
    Infinity,
  );
  const claims: ClaimConvergence = {
    claim_convergence: verifiedShare(allClaims),
    total_claims: allClaims.length,
    leader_claim_convergence: verifiedShare(leaderClaims),
    leader_total_claims: leaderClaims.length,
  };
  const candidates: Candidate[] = proposals.map((p) => ({
    agent_id: p.agent_id,
    score: scores.find((s) => s.agent_id === p.agent_id)?.score ?? 0,
    content_preview: p.content,
    thought_preview: p.thought_process,
    claims: mergeClaims(evaluations.filter((e) => e.target_id === p.agent_id).flatMap((e) => e.claim_assessments)),
  }));
  return {
    round,
    proposals: [...proposals],
    evaluations,
    scores,
    claims,
    candidates,
    convergence,
    decisiveness: round2(top - second),
    leader,
  };
}

/** Candidates as they stand while proposals arrive: no evaluations yet, so no scores or claims. */
export function unscoredCandidates(proposals: readonly Proposal[]): Candidate[] {
  return proposals.map((p) => ({
    agent_id: p.agent_id,
    score: 0,
    content_preview: p.content,
    thought_preview: p.thought_process,
    claims: [],
  }));
}

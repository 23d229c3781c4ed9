import type { Candidate, JobChosen, NsedRound, Verdict } from './wire.js';

/**
 * `GET /deliberation/{id}/details` (docs/protocol.md §3.5) read leniently into the ballots nsed
 * shows: every evaluation each author's proposal received, round by round, with the evaluator's
 * stance, score, claim verdicts, disagreements and whether it was a synthetic stand-in for an
 * evaluator that timed out. The server is untrusted: every list and string is capped, a field of
 * the wrong type counts as not reported (null), and an entry without a round or an author is
 * skipped.
 */

export type Stance = 'strong_agree' | 'agree' | 'neutral' | 'disagree' | 'strong_disagree';
export const STANCES: readonly Stance[] = ['strong_agree', 'agree', 'neutral', 'disagree', 'strong_disagree'];

export type Confidence = 'high' | 'medium' | 'low';

export interface DetailsClaim {
  /** The server's claim id when it sent one; claims are matched by it, else by their text. */
  id: string | null;
  claim: string;
  verdict: Verdict;
  reason: string | null;
}

export interface DetailsDisagreement {
  position: string;
  confidence: Confidence | null;
}

/** One model call's `token_usage` (docs/protocol.md §3.5), or a job's totals in the same shape. */
export interface TokenUsage {
  input_tokens: number | null;
  output_tokens: number | null;
  reported_cost_usd: number | null;
}

/** A `token_usage` object read leniently, or null when there is none. */
export function tokenUsageOf(v: unknown): TokenUsage | null {
  if (!isRecord(v)) return null;
  const out = {
    input_tokens: num(v['input_tokens']),
    output_tokens: num(v['output_tokens']),
    reported_cost_usd: num(v['reported_cost_usd']),
  };
  return out.input_tokens === null && out.output_tokens === null && out.reported_cost_usd === null ? null : out;
}

export interface DetailsEvaluation {
  evaluator: string;
  /** The evaluation call's `token_usage`, or null. */
  usage: TokenUsage | null;
  score: number | null;
  stance: Stance | null;
  /** True for an evaluation the orchestrator injected for an evaluator that timed out; null when not said. */
  synthetic: boolean | null;
  justification: string | null;
  claims: DetailsClaim[];
  disagreements: DetailsDisagreement[];
}

export interface DetailsEntry {
  round: number;
  author: string;
  score: number | null;
  /** The proposal's text (capped), for the rounds rebuilt from the history. */
  content: string;
  /** The proposal call's `token_usage`, or null. */
  usage: TokenUsage | null;
  evaluations: DetailsEvaluation[];
}

export interface DetailsRound {
  round: number;
  convergence: number | null;
  decisiveness: number | null;
  /** Each proposal's controversy (`controversy_scores`, or `proposal_scores[].controversy_score`), by author. */
  controversy: Map<string, number>;
}

export interface CouncilDetails {
  entries: DetailsEntry[];
  rounds: DetailsRound[];
  /** `final_result.author_agent_id`, or null. */
  finalAuthor: string | null;
  /** `final_result.aggregated_score`, or null. */
  finalScore: number | null;
  /** `total_rounds` where the server sends it, or null. */
  totalRounds: number | null;
}

/** Caps on what one answer may hold (docs/reliability.md #220). */
export const DETAILS_LIMITS = { entries: 2_000, evaluations: 200, claims: 200, text: 2_000, id: 200 } as const;

const VERDICTS: readonly Verdict[] = ['verified', 'contested', 'unverified', 'wrong', 'unknown'];
const CONFIDENCES: readonly Confidence[] = ['high', 'medium', 'low'];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const text = (v: unknown, cap: number = DETAILS_LIMITS.text): string | null =>
  typeof v === 'string' ? v.slice(0, cap) : null;
const list = (v: unknown, cap: number): unknown[] => (Array.isArray(v) ? v.slice(0, cap) : []);
const oneOf = <T extends string>(v: unknown, known: readonly T[]): T | null =>
  typeof v === 'string' && (known as readonly string[]).includes(v.toLowerCase()) ? (v.toLowerCase() as T) : null;

function claimOf(v: unknown): DetailsClaim | undefined {
  if (!isRecord(v)) return undefined;
  const claim = text(v['claim']);
  if (claim === null || claim.trim() === '') return undefined;
  return {
    id: text(v['claim_id'], DETAILS_LIMITS.id),
    claim,
    // A verdict outside the five known ones counts as unknown, as in the verdict (docs/ndjson.md §4b).
    verdict: oneOf(v['verdict'], VERDICTS) ?? 'unknown',
    reason: text(v['reason']),
  };
}

function disagreementOf(v: unknown): DetailsDisagreement | undefined {
  if (!isRecord(v)) return undefined;
  const position = text(v['evaluator_position']);
  if (position === null) return undefined;
  return { position, confidence: oneOf(v['confidence'], CONFIDENCES) };
}

function evaluationOf(v: unknown): DetailsEvaluation | undefined {
  if (!isRecord(v)) return undefined;
  const evaluator = text(v['evaluator_agent_id'] ?? v['evaluator_id'], DETAILS_LIMITS.id);
  if (evaluator === null || evaluator === '') return undefined;
  // The evaluation's fields sit under `evaluation` (the reference server), or beside the id.
  const e = isRecord(v['evaluation']) ? v['evaluation'] : v;
  const synthetic =
    typeof e['synthetic'] === 'boolean' ? e['synthetic'] : typeof v['synthetic'] === 'boolean' ? v['synthetic'] : null;
  return {
    evaluator,
    usage: tokenUsageOf(e['token_usage']),
    score: num(e['score']),
    stance: oneOf(e['stance'], STANCES),
    synthetic,
    justification: text(e['justification']),
    claims: list(e['claim_assessments'], DETAILS_LIMITS.claims).flatMap((c) => claimOf(c) ?? []),
    disagreements: list(e['disagreements'], DETAILS_LIMITS.claims).flatMap((d) => disagreementOf(d) ?? []),
  };
}

function entryOf(v: unknown): DetailsEntry | undefined {
  if (!isRecord(v)) return undefined;
  const round = num(v['round']);
  const author = text(v['author_agent_id'], DETAILS_LIMITS.id);
  if (round === null || author === null || author === '') return undefined;
  const proposal = isRecord(v['proposal']) ? v['proposal'] : {};
  return {
    round,
    author,
    score: num(v['aggregated_score']),
    content: text(proposal['content'], PREVIEW) ?? '',
    usage: tokenUsageOf(proposal['token_usage']),
    evaluations: list(v['evaluations'], DETAILS_LIMITS.evaluations).flatMap((e) => evaluationOf(e) ?? []),
  };
}

function roundOf(v: unknown): DetailsRound | undefined {
  if (!isRecord(v)) return undefined;
  const round = num(v['round']);
  if (round === null) return undefined;
  const controversy = new Map<string, number>();
  const byAuthor = isRecord(v['controversy_scores']) ? v['controversy_scores'] : {};
  for (const [author, n] of Object.entries(byAuthor).slice(0, DETAILS_LIMITS.evaluations)) {
    const x = num(n);
    if (x !== null) controversy.set(author.slice(0, DETAILS_LIMITS.id), x);
  }
  for (const p of list(v['proposal_scores'], DETAILS_LIMITS.evaluations)) {
    const author = isRecord(p) ? text(p['agent_id'], DETAILS_LIMITS.id) : null;
    const x = isRecord(p) ? num(p['controversy_score']) : null;
    if (author !== null && x !== null) controversy.set(author, x);
  }
  return { round, convergence: num(v['convergence_score']), decisiveness: num(v['decisiveness']), controversy };
}

/** The ballots of a `/details` answer, or null when it is not an object with a `history` list. */
export function parseDetails(v: unknown): CouncilDetails | null {
  if (!isRecord(v) || !Array.isArray(v['history'])) return null;
  const result = isRecord(v['final_result']) ? v['final_result'] : {};
  const final = text(result['author_agent_id'], DETAILS_LIMITS.id);
  const total = num(v['total_rounds']);
  return {
    entries: list(v['history'], DETAILS_LIMITS.entries).flatMap((e) => entryOf(e) ?? []),
    rounds: list(v['rounds'], DETAILS_LIMITS.entries).flatMap((r) => roundOf(r) ?? []),
    finalAuthor: final === '' ? null : final,
    finalScore: num(result['aggregated_score']),
    totalRounds: total !== null && total > 0 ? total : null,
  };
}

/** A rebuilt proposal keeps this much of its text, as a live round's preview would. */
const PREVIEW = 4_000;

/**
 * The scored rounds of a deliberation rebuilt from its history, in the shape the native stream's
 * round summaries give (scores per author, the round's convergence), for the rounds a client
 * did not see live: a stream it closed when `/result` already said completed, or a job that
 * ended while it was away (docs/reliability.md #223).
 */
export function roundsOfDetails(d: CouncilDetails): NsedRound[] {
  const numbers = [...new Set(d.entries.map((e) => e.round))].sort((a, b) => a - b);
  const total = d.totalRounds ?? numbers.at(-1) ?? 0;
  return numbers.map((round) => {
    const candidates: Candidate[] = d.entries
      .filter((e) => e.round === round)
      .map((e) => ({
        agent_id: e.author,
        score: e.score ?? 0,
        content_preview: e.content,
        thought_preview: '',
        claims: [],
      }));
    const convergence = d.rounds.find((r) => r.round === round)?.convergence ?? null;
    const decisiveness = d.rounds.find((r) => r.round === round)?.decisiveness ?? null;
    return {
      round,
      total_rounds: total,
      progress: total > 0 ? Math.min(1, round / total) : 1,
      scored: true,
      candidates,
      ...(convergence === null ? {} : { convergence }),
      ...(decisiveness === null ? {} : { decisiveness }),
    };
  });
}

/** The chosen proposal as `job_complete` would name it, from `final_result`, or null. */
export function chosenOfDetails(d: CouncilDetails): JobChosen | null {
  if (d.finalAuthor === null) return null;
  const rounds = new Set(d.entries.map((e) => e.round)).size;
  return {
    agent_id: d.finalAuthor,
    score: d.finalScore,
    rounds_completed: rounds > 0 ? rounds : null,
    total_rounds: d.totalRounds,
  };
}

/** Every call of the history with its agent and `token_usage`; null when any call reports none. */
export function callsOfDetails(d: CouncilDetails): Array<{ agent: string; usage: TokenUsage }> | null {
  const calls: Array<{ agent: string; usage: TokenUsage }> = [];
  for (const e of d.entries) {
    if (e.usage === null) return null;
    calls.push({ agent: e.author, usage: e.usage });
    for (const x of e.evaluations) {
      if (x.usage === null) return null;
      calls.push({ agent: x.evaluator, usage: x.usage });
    }
  }
  return calls.length === 0 ? null : calls;
}

/** `GET /deliberation/{id}/budget`'s figures (docs/protocol.md §3.7), or null without a `budget` object. */
export function budgetOf(
  v: unknown,
): { input_tokens: number | null; output_tokens: number | null; estimated_cost_usd: number | null } | null {
  if (!isRecord(v) || !isRecord(v['budget'])) return null;
  const b = v['budget'];
  return {
    input_tokens: num(b['total_input_tokens']),
    output_tokens: num(b['total_output_tokens']),
    estimated_cost_usd: num(b['estimated_cost_usd']),
  };
}

/** An ended job's rounds and chosen proposal as the native stream would have told them. */
export interface DetailsHistory {
  rounds: NsedRound[];
  chosen: JobChosen | null;
}

/** The rounds and the choice of a `/details` answer, or undefined when it holds no round. */
export function historyOf(d: CouncilDetails | null): DetailsHistory | undefined {
  if (d === null) return undefined;
  const rounds = roundsOfDetails(d);
  return rounds.length === 0 ? undefined : { rounds, chosen: chosenOfDetails(d) };
}

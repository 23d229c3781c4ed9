import {
  ballotsOf,
  dissentersOf,
  trajectoryOf,
  trustOf,
  worseVerdict,
  normalise,
  type Ballots,
  type Dissenter,
  type Trajectory,
  type Trust,
  type TrustSources,
} from './ballots.js';
import type { CouncilDetails } from '../protocol/details.js';
import type { Usage } from './usage.js';
import { convergenceByRound } from '../protocol/milestone.js';
import type {
  AgentInfo,
  Candidate,
  JobChosen,
  NsedFinalized,
  NsedRound,
  Verdict as ClaimVerdict,
} from '../protocol/wire.js';

export type { Ballot, BallotCell, Ballots, Dissenter, Trajectory, Trust } from './ballots.js';

/**
 * What the council concluded, as data: the contract that `-o json` (`verdict`), NDJSON (the
 * `verdict` event), the recorded assistant turn, `sessions show`, the exports, the gates and the
 * reports share (docs/ndjson.md). Every value is null when the server did not report it; nothing
 * here is ever guessed. Versioned apart from the NDJSON schema, so a report reader can tell.
 */
export const VERDICT_VERSION = 2;

/** How many claims carry each verdict. */
export type VerdictCounts = Record<ClaimVerdict, number>;

export interface VerdictClaim {
  claim: string;
  reason: string | null;
}

export interface CouncilVerdict {
  v: typeof VERDICT_VERSION;
  rounds: {
    /** Rounds the council completed (scored), or null when no round was reported. */
    completed: number | null;
    /** Rounds it planned (`total_rounds`), or null. */
    planned: number | null;
  };
  convergence: {
    /** Each round's convergence (0-1) that the server reported, in round order; null when none was. */
    per_round: Array<{ round: number; value: number }> | null;
    /** The last reported value, or null. */
    final: number | null;
    /** How many final rounds in a row were at or above `final` (1 when only the last was), or null. */
    held: number | null;
  };
  /** The agent whose proposal is the answer, with its score, and where that came from. */
  chosen: { agent: string; score: number | null; source: 'job_complete' | 'finalized' | 'last_round' } | null;
  /** The best-scored other agent of the last scored round. */
  runner_up: { agent: string; score: number } | null;
  /** chosen.score - runner_up.score, or null when either is missing. */
  margin: number | null;
  /** Each agent's score in the last scored round, or null when no round was scored. */
  scores: Record<string, number> | null;
  /** Null when the last scored round's candidates carry no claims at all. */
  claims: {
    /** The chosen proposal's claims grouped by verdict (a claim sent twice keeps its worst verdict), or null. */
    chosen: Record<ClaimVerdict, VerdictClaim[]> | null;
    /** Counts of `chosen`, or null with it. */
    chosen_counts: VerdictCounts | null;
    /** The same counts over every candidate of the last scored round. */
    all_counts: VerdictCounts;
  } | null;
  /** The evaluators whose stance toward the chosen proposal is disagree or strong_disagree; null when stances are unknown. */
  dissent: Dissenter[] | null;
  /** Each evaluator's ballot on the chosen proposal, and the final round's matrix (from `/details`), or null. */
  ballots: Ballots | null;
  /** Endorsements, agreement, synthetic share, decisiveness, controversy and diversity (docs/ndjson.md §4b). */
  trust: Trust;
  /** The leader per round, lead changes, when convergence settled, claims the chosen proposal dropped; null without rounds. */
  trajectory: Trajectory | null;
}

/** The checks a gate can make (`--min-convergence` and the others, or a `--gates` file). */
export type GateName =
  | 'min-convergence'
  | 'max-wrong'
  | 'max-contested'
  | 'min-score'
  | 'min-margin'
  | 'min-agreement'
  | 'min-endorse'
  | 'min-endorse-share'
  | 'max-synthetic'
  | 'max-cost';

export type GateStatus = 'pass' | 'fail' | 'inconclusive';

export interface GateCheck {
  name: GateName;
  /** The threshold the user set. */
  expected: number;
  /** What the verdict says, or null when the server did not report it (then `inconclusive`). */
  actual: number | null;
  status: GateStatus;
  /** Why an `inconclusive` check could not be judged (absent on the others). */
  reason?: InconclusiveReason;
}

/**
 * Why a check could not be judged, for machines: the server did not report the value, or the
 * convergence rests on a final round whose votes were mostly synthetic stand-ins.
 */
export type InconclusiveReason = 'not_reported' | 'synthetic_votes';

/** All checks combined with AND: any `fail` fails; otherwise any `inconclusive` is inconclusive. */
export interface GateResult {
  status: GateStatus;
  checks: GateCheck[];
  /** The first inconclusive check's reason, when the result is inconclusive. */
  reason?: InconclusiveReason;
}

/** The checks in the order they are judged and shown. */
export const GATE_NAMES: readonly GateName[] = [
  'min-convergence',
  'max-wrong',
  'max-contested',
  'min-score',
  'min-margin',
  'min-agreement',
  'min-endorse',
  'min-endorse-share',
  'max-synthetic',
  'max-cost',
];

/** The synthetic share of the final round above which a convergence gate is inconclusive, unless --max-synthetic says. */
export const DEFAULT_MAX_SYNTHETIC = 0.5;

/** The thresholds a run sets (flags and a `--gates` file merged); an absent name is not checked. */
export type Gates = Partial<Record<GateName, number>>;

const CLAIM_VERDICTS: readonly ClaimVerdict[] = ['verified', 'contested', 'unverified', 'wrong', 'unknown'];

/**
 * What a verdict is derived from: the fold of a turn's events (the transcript reducer's fields of
 * the same names) or a recorded turn. `rounds` may hold unscored rounds; only scored ones count.
 */
export interface VerdictSources {
  readonly rounds: readonly NsedRound[];
  readonly reasoning: string | null | undefined;
  readonly finalized?: NsedFinalized | undefined;
  readonly chosen?: JobChosen | undefined;
  /** `/details` read once the turn ended, or null when the server has none (then no ballots). */
  readonly details?: CouncilDetails | null | undefined;
  /** The council's agents as `/agents` lists them, for its diversity; null when not listed. */
  readonly agents?: readonly AgentInfo[] | null | undefined;
  /** The native round summary's trust figures of the last scored round. */
  readonly summary?: TrustSources['summary'];
  /** A turn that failed names no chosen agent: it has no answer to choose. */
  readonly failed?: boolean | undefined;
}

/** Differences of scores rounded to 6 places, so 0.87 - 0.80 compares as 0.07 against a gate. */
const round6 = (n: number): number => Math.round(n * 1e6) / 1e6;

const finite = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n);

/**
 * The council's verdict, from what the server reported and nothing else. Sources in the order they
 * are trusted (docs/ndjson.md "The verdict"): the native structured fields (a round's
 * `convergence`, `chosen` from `job_complete`), then the compat rounds (`nsed_round`,
 * `nsed_finalized`), and only then the documented reasoning milestone for convergence.
 */
export function deriveVerdict(src: VerdictSources): CouncilVerdict {
  const scored = lastByRound(src.rounds.filter((r) => r.scored));
  const last = scored.at(-1);
  const convergence = convergenceOf(scored, src.details ?? null, src.reasoning ?? '');
  const chosen = src.failed === true ? null : chosenOf(src, last);
  const runnerUp = chosen === null ? null : runnerUpOf(last, chosen.agent);
  const margin =
    chosen !== null && finite(chosen.score) && runnerUp !== null ? round6(chosen.score - runnerUp.score) : null;
  const scores = last === undefined ? null : Object.fromEntries(last.candidates.map((c) => [c.agent_id, c.score]));
  const claimsReported = last !== undefined && last.candidates.some((c) => c.claims.length > 0);
  const chosenCandidate = chosen === null ? undefined : last?.candidates.find((c) => c.agent_id === chosen.agent);
  const chosenClaims = claimsReported && chosenCandidate !== undefined ? groupClaims(chosenCandidate) : null;
  const planned = positive(src.chosen?.total_rounds) ?? positive(src.rounds.at(-1)?.total_rounds);
  const completed = positive(src.chosen?.rounds_completed) ?? (scored.length > 0 ? scored.length : null);
  const details = src.details ?? null;
  const ballots = ballotsOf(details, chosen?.agent ?? null);
  const agents = src.agents ?? null;
  const leaders = scored.flatMap((r) => {
    const top = topOf(r.candidates);
    return top === undefined ? [] : [{ round: r.round, agent: top.agent_id }];
  });
  return {
    v: 2,
    rounds: { completed, planned },
    convergence,
    chosen,
    runner_up: runnerUp,
    margin,
    scores,
    claims:
      claimsReported && last !== undefined
        ? {
            chosen: chosenClaims,
            chosen_counts: chosenClaims === null ? null : countsOf(chosenClaims),
            all_counts: countClaims(last.candidates),
          }
        : null,
    dissent: dissentersOf(ballots),
    ballots,
    trust: trustOf({
      details,
      ballots,
      agents,
      chosen: chosen?.agent,
      summary: src.summary ?? roundSummary(last, chosen?.agent),
    }),
    trajectory: trajectoryOf(
      leaders,
      convergence.per_round,
      last === undefined ? null : last.candidates,
      chosen?.agent ?? null,
    ),
  };
}

const positive = (n: number | null | undefined): number | null => (finite(n) && n > 0 ? n : null);

/** The native round summary's trust figures of a round (absent on the compat path): summed counts, the chosen's controversy. */
function roundSummary(last: NsedRound | undefined, chosen: string | undefined): TrustSources['summary'] {
  if (last === undefined) return undefined;
  const counted = last.candidates.filter((c) => finite(c.real_evals) || finite(c.synthetic_evals));
  const controversy = last.candidates.find((c) => c.agent_id === chosen)?.controversy;
  if (counted.length === 0 && !finite(last.decisiveness) && !finite(controversy)) return undefined;
  return {
    decisiveness: finite(last.decisiveness) ? last.decisiveness : null,
    controversy: finite(controversy) ? controversy : null,
    real: counted.length === 0 ? null : counted.reduce((n, c) => n + (c.real_evals ?? 0), 0),
    synthetic: counted.length === 0 ? null : counted.reduce((n, c) => n + (c.synthetic_evals ?? 0), 0),
  };
}

/** One scored round per number, the latest kept (a replay after a resume repeats rounds). */
function lastByRound(rounds: readonly NsedRound[]): NsedRound[] {
  const byNumber = new Map<number, NsedRound>();
  for (const r of rounds) {
    byNumber.delete(r.round);
    byNumber.set(r.round, r);
  }
  return [...byNumber.values()];
}

/**
 * Each round's convergence from the first source that reports any: the native round summaries,
 * then `/details`' `rounds[].convergence_score` (data, whatever the server's wording), and only
 * then the reasoning milestones, whose wording is one seed's example and no contract. Sources
 * are not mixed: one server's scale per verdict.
 */
function convergenceOf(
  scored: readonly NsedRound[],
  details: CouncilDetails | null,
  reasoning: string,
): CouncilVerdict['convergence'] {
  const values = new Map<number, number>();
  const structured = scored.filter((r) => finite(r.convergence));
  const detailed = (details?.rounds ?? []).filter((r) => finite(r.convergence) && r.round > 0);
  if (structured.length > 0) {
    for (const r of structured) values.set(r.round, r.convergence as number);
  } else if (detailed.length > 0) {
    for (const r of detailed) values.set(r.round, r.convergence as number);
  } else {
    for (const [round, value] of convergenceByRound(reasoning)) values.set(round, value);
  }
  const sorted = [...values.entries()].sort((a, b) => a[0] - b[0]).map(([round, value]) => ({ round, value }));
  const per_round = sorted.length === 0 ? null : sorted;
  const final = sorted.at(-1)?.value ?? null;
  let held: number | null = null;
  if (final !== null) {
    held = 0;
    for (let i = sorted.length - 1; i >= 0 && (sorted[i]?.value ?? -Infinity) >= final; i--) held++;
  }
  return { per_round, final, held };
}

function chosenOf(src: VerdictSources, last: NsedRound | undefined): CouncilVerdict['chosen'] {
  const scoreIn = (agent: string): number | null => {
    const c = last?.candidates.find((x) => x.agent_id === agent);
    return c !== undefined && finite(c.score) ? c.score : null;
  };
  if (src.chosen !== undefined && src.chosen.agent_id !== '') {
    const score = finite(src.chosen.score) ? src.chosen.score : scoreIn(src.chosen.agent_id);
    return { agent: src.chosen.agent_id, score, source: 'job_complete' };
  }
  if (src.finalized !== undefined && src.finalized.chosen_agent_id !== '') {
    const agent = src.finalized.chosen_agent_id;
    return { agent, score: scoreIn(agent), source: 'finalized' };
  }
  const top = topOf(last?.candidates ?? []);
  return top === undefined ? null : { agent: top.agent_id, score: top.score, source: 'last_round' };
}

/** The first highest score (ties keep the earlier candidate, as the round line does). */
function topOf(candidates: readonly Candidate[]): Candidate | undefined {
  let top: Candidate | undefined;
  for (const c of candidates) if (finite(c.score) && (top === undefined || c.score > top.score)) top = c;
  return top;
}

function runnerUpOf(last: NsedRound | undefined, chosen: string | undefined): CouncilVerdict['runner_up'] {
  const top = topOf((last?.candidates ?? []).filter((c) => c.agent_id !== chosen));
  return top === undefined ? null : { agent: top.agent_id, score: top.score };
}

function groupClaims(c: Candidate): Record<ClaimVerdict, VerdictClaim[]> {
  const out = Object.fromEntries(CLAIM_VERDICTS.map((v) => [v, [] as VerdictClaim[]])) as Record<
    ClaimVerdict,
    VerdictClaim[]
  >;
  // A claim the server sends twice keeps its worst verdict (docs/protocol.md §4.4), listed once.
  const merged = new Map<string, { claim: string; verdict: ClaimVerdict; reason: string | null }>();
  for (const k of c.claims) {
    const verdict = CLAIM_VERDICTS.includes(k.verdict) ? k.verdict : 'unknown';
    const key = normalise(k.claim);
    const seen = merged.get(key);
    if (seen === undefined) merged.set(key, { claim: k.claim, verdict, reason: k.reason ?? null });
    else if (worseVerdict(seen.verdict, verdict) !== seen.verdict)
      merged.set(key, { claim: seen.claim, verdict, reason: k.reason ?? null });
  }
  for (const m of merged.values()) out[m.verdict].push({ claim: m.claim, reason: m.reason });
  return out;
}

const zeroCounts = (): VerdictCounts =>
  Object.fromEntries(CLAIM_VERDICTS.map((v) => [v, 0])) as unknown as VerdictCounts;

function countsOf(grouped: Record<ClaimVerdict, VerdictClaim[]>): VerdictCounts {
  const out = zeroCounts();
  for (const v of CLAIM_VERDICTS) out[v] = grouped[v].length;
  return out;
}

function countClaims(candidates: readonly Candidate[]): VerdictCounts {
  const out = zeroCounts();
  for (const c of candidates)
    for (const k of c.claims) out[CLAIM_VERDICTS.includes(k.verdict) ? k.verdict : 'unknown'] += 1;
  return out;
}

/** The value each gate reads from a verdict, or null when the server did not report it. */
export function gateActual(verdict: CouncilVerdict, name: GateName, usage: Usage | null = null): number | null {
  switch (name) {
    case 'min-convergence':
      return verdict.convergence.final;
    case 'max-wrong':
      return judgedCount(verdict.claims?.chosen_counts ?? null, 'wrong');
    case 'max-contested':
      return judgedCount(verdict.claims?.chosen_counts ?? null, 'contested');
    case 'min-score':
      return verdict.chosen?.score ?? null;
    case 'min-margin':
      return verdict.margin;
    case 'min-agreement':
      return verdict.trust.agreement;
    case 'min-endorse':
      return verdict.trust.endorse?.count ?? null;
    case 'min-endorse-share': {
      const e = verdict.trust.endorse;
      return e === null || e.of === 0 ? null : Math.round((e.count / e.of) * 1e6) / 1e6;
    }
    case 'max-synthetic':
      return verdict.trust.synthetic_share.final;
    case 'max-cost':
      // Judged after the fact on what the turn cost; an unknown cost is never a pass (docs/ndjson.md §4c).
      return usage?.cost_usd ?? null;
  }
}

/**
 * How many of the chosen proposal's claims were judged `verdict`, or null when none of them was
 * judged at all (each one `unknown`: the server sent no verdict, or no claim): no wrong claim
 * among claims nobody judged is not "no wrong claim", so a --max-wrong 0 is inconclusive there.
 */
function judgedCount(counts: VerdictCounts | null, verdict: 'wrong' | 'contested'): number | null {
  if (counts === null) return null;
  const judged = CLAIM_VERDICTS.reduce((n, v) => (v === 'unknown' ? n : n + counts[v]), 0);
  return judged === 0 ? null : counts[verdict];
}

/** `min-*` gates pass at or above their threshold, `max-*` gates at or below it. */
export const isMinimum = (name: GateName): boolean => name.startsWith('min-');

/**
 * Judges the verdict against every gate set, combined with AND: any failed check fails the
 * whole; otherwise any check whose value is null makes it inconclusive (never a silent pass).
 */
export function judgeGates(verdict: CouncilVerdict, gates: Gates, usage: Usage | null = null): GateResult {
  const checks: GateCheck[] = [];
  for (const name of GATE_NAMES) {
    const expected = gates[name];
    if (expected === undefined) continue;
    const actual = gateActual(verdict, name, usage);
    const ok = actual !== null && (isMinimum(name) ? actual >= expected : actual <= expected);
    const check: GateCheck = {
      name,
      expected,
      actual,
      status: actual === null ? 'inconclusive' : ok ? 'pass' : 'fail',
    };
    if (actual === null) check.reason = 'not_reported';
    else if (name === 'min-convergence' && restsOnStandIns(verdict, gates)) {
      // Convergence reached by stand-in votes is no agreement: never a pass (docs/ndjson.md §4c).
      check.status = 'inconclusive';
      check.reason = 'synthetic_votes';
    }
    checks.push(check);
  }
  const status: GateStatus = checks.some((c) => c.status === 'fail')
    ? 'fail'
    : checks.some((c) => c.status === 'inconclusive')
      ? 'inconclusive'
      : 'pass';
  const reason = status === 'inconclusive' ? checks.find((c) => c.reason !== undefined)?.reason : undefined;
  return reason === undefined ? { status, checks } : { status, checks, reason };
}

/** The final round's synthetic share is above --max-synthetic (default 0.5). */
const restsOnStandIns = (verdict: CouncilVerdict, gates: Gates): boolean => {
  const share = verdict.trust.synthetic_share.final;
  return share !== null && share > (gates['max-synthetic'] ?? DEFAULT_MAX_SYNTHETIC);
};

const record = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const numOrNull = (x: unknown): boolean => x === null || (typeof x === 'number' && Number.isFinite(x));

/** The trust figures of a verdict recorded before they existed (version 1): all unknown. */
const UNKNOWN_TRUST: Trust = {
  endorse: null,
  agreement: null,
  synthetic_share: { final: null, all: null },
  decisiveness: null,
  controversy: null,
  diversity: null,
};

/**
 * A verdict read back from a file nsed or a person wrote (a recorded turn, a saved `-o json`):
 * version 2 as it is, version 1 upgraded (its score-gap dissent, which named no stance, becomes
 * unknown; no ballots, trust unknown), anything else null, so a reader says "not reported"
 * rather than guess. Every number a gate reads is checked to be a number or null.
 */
export function readVerdict(v: unknown): CouncilVerdict | null {
  if (!record(v) || (v['v'] !== 1 && v['v'] !== 2)) return null;
  const { rounds, convergence, claims, chosen } = v;
  if (!record(rounds) || !record(convergence) || !numOrNull(convergence['final']) || !numOrNull(v['margin']))
    return null;
  if (chosen !== null && (!record(chosen) || !numOrNull(chosen['score']))) return null;
  if (claims !== null && !record(claims)) return null;
  if (record(claims)) {
    const counts = claims['chosen_counts'];
    if (counts !== null && counts !== undefined && (!record(counts) || !Object.values(counts).every(numOrNull)))
      return null;
  }
  if (v['v'] === 2) {
    const trust = v['trust'];
    if (!record(trust) || !numOrNull(trust['agreement']) || !record(trust['synthetic_share'])) return null;
    return v as unknown as CouncilVerdict;
  }
  const perRound = convergence['per_round'];
  const v1Claims = record(claims) && claims['all_counts'] !== null ? claims : null;
  return {
    ...(v as unknown as CouncilVerdict),
    v: 2,
    convergence: {
      ...(convergence as unknown as CouncilVerdict['convergence']),
      per_round:
        Array.isArray(perRound) && perRound.length > 0 ? (perRound as Array<{ round: number; value: number }>) : null,
    },
    claims: v1Claims as CouncilVerdict['claims'],
    dissent: null,
    ballots: null,
    trust: UNKNOWN_TRUST,
    trajectory: null,
  };
}

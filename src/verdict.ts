import { convergenceByRound } from './protocol/milestone.js';
import type { Candidate, JobChosen, NsedFinalized, NsedRound, Verdict as ClaimVerdict } from './protocol/wire.js';

/**
 * What the council concluded, as data: the contract that `-o json` (`verdict`), NDJSON (the
 * `verdict` event), the recorded assistant turn, `sessions show`, the exports, the gates and the
 * reports share (docs/ndjson.md). Every value is null when the server did not report it; nothing
 * here is ever guessed. Versioned apart from the NDJSON schema, so a report reader can tell.
 */
export const VERDICT_VERSION = 1;

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
    /** Each round's convergence (0-1) that the server reported, in round order. */
    per_round: Array<{ round: number; value: number }>;
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
  claims: {
    /** The chosen proposal's claims grouped by verdict, or null when it has none reported. */
    chosen: Record<ClaimVerdict, VerdictClaim[]> | null;
    /** Counts of `chosen`, or null with it. */
    chosen_counts: VerdictCounts | null;
    /** The same counts over every candidate of the last scored round, or null. */
    all_counts: VerdictCounts | null;
  };
  /** Agents below the chosen one by more than the dissent rule (docs/ndjson.md), or null. */
  dissent: string[] | null;
}

/** The checks a gate can make (`--min-convergence` and the others, or a `--gates` file). */
export type GateName = 'min-convergence' | 'max-wrong' | 'max-contested' | 'min-score' | 'min-margin';

export type GateStatus = 'pass' | 'fail' | 'inconclusive';

export interface GateCheck {
  name: GateName;
  /** The threshold the user set. */
  expected: number;
  /** What the verdict says, or null when the server did not report it (then `inconclusive`). */
  actual: number | null;
  status: GateStatus;
}

/** All checks combined with AND: any `fail` fails; otherwise any `inconclusive` is inconclusive. */
export interface GateResult {
  status: GateStatus;
  checks: GateCheck[];
}

/** The checks in the order they are judged and shown. */
export const GATE_NAMES: readonly GateName[] = [
  'min-convergence',
  'max-wrong',
  'max-contested',
  'min-score',
  'min-margin',
];

/** The thresholds a run sets (flags and a `--gates` file merged); an absent name is not checked. */
export type Gates = Partial<Record<GateName, number>>;

const CLAIM_VERDICTS: readonly ClaimVerdict[] = ['verified', 'contested', 'unverified', 'wrong', 'unknown'];

/**
 * An agent dissents when its final score trails the chosen one's by more than the larger of the
 * margin and this gap (docs/ndjson.md "The verdict"), so a close runner-up never counts.
 */
export const DISSENT_MIN_GAP = 0.1;

/**
 * What a verdict is derived from: the fold of a turn's events (the transcript reducer's fields of
 * the same names) or a recorded turn. `rounds` may hold unscored rounds; only scored ones count.
 */
export interface VerdictSources {
  readonly rounds: readonly NsedRound[];
  readonly reasoning: string | null | undefined;
  readonly finalized?: NsedFinalized | undefined;
  readonly chosen?: JobChosen | undefined;
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
  const convergence = convergenceOf(scored, src.reasoning ?? '');
  const chosen = chosenOf(src, last);
  const runnerUp = runnerUpOf(last, chosen?.agent);
  const margin =
    chosen !== null && finite(chosen.score) && runnerUp !== null ? round6(chosen.score - runnerUp.score) : null;
  const scores = last === undefined ? null : Object.fromEntries(last.candidates.map((c) => [c.agent_id, c.score]));
  const claimsReported = last !== undefined && last.candidates.some((c) => c.claims.length > 0);
  const chosenCandidate = chosen === null ? undefined : last?.candidates.find((c) => c.agent_id === chosen.agent);
  const chosenClaims = claimsReported && chosenCandidate !== undefined ? groupClaims(chosenCandidate) : null;
  const planned = positive(src.chosen?.total_rounds) ?? positive(src.rounds.at(-1)?.total_rounds);
  const completed = positive(src.chosen?.rounds_completed) ?? (scored.length > 0 ? scored.length : null);
  return {
    v: 1,
    rounds: { completed, planned },
    convergence,
    chosen,
    runner_up: runnerUp,
    margin,
    scores,
    claims: {
      chosen: chosenClaims,
      chosen_counts: chosenClaims === null ? null : countsOf(chosenClaims),
      all_counts: claimsReported && last !== undefined ? countClaims(last.candidates) : null,
    },
    dissent: dissentOf(chosen, margin, last),
  };
}

const positive = (n: number | null | undefined): number | null => (finite(n) && n > 0 ? n : null);

/** One scored round per number, the latest kept (a replay after a resume repeats rounds). */
function lastByRound(rounds: readonly NsedRound[]): NsedRound[] {
  const byNumber = new Map<number, NsedRound>();
  for (const r of rounds) {
    byNumber.delete(r.round);
    byNumber.set(r.round, r);
  }
  return [...byNumber.values()];
}

function convergenceOf(scored: readonly NsedRound[], reasoning: string): CouncilVerdict['convergence'] {
  const values = new Map<number, number>();
  const structured = scored.filter((r) => finite(r.convergence));
  if (structured.length > 0) {
    for (const r of structured) values.set(r.round, r.convergence as number);
  } else {
    for (const [round, value] of convergenceByRound(reasoning)) values.set(round, value);
  }
  const per_round = [...values.entries()].sort((a, b) => a[0] - b[0]).map(([round, value]) => ({ round, value }));
  const final = per_round.at(-1)?.value ?? null;
  let held: number | null = null;
  if (final !== null) {
    held = 0;
    for (let i = per_round.length - 1; i >= 0 && (per_round[i]?.value ?? -Infinity) >= final; i--) held++;
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
  for (const k of c.claims) {
    const verdict = CLAIM_VERDICTS.includes(k.verdict) ? k.verdict : 'unknown';
    out[verdict].push({ claim: k.claim, reason: k.reason ?? null });
  }
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

function dissentOf(
  chosen: CouncilVerdict['chosen'],
  margin: number | null,
  last: NsedRound | undefined,
): string[] | null {
  if (chosen === null || !finite(chosen.score) || last === undefined) return null;
  const gap = Math.max(margin ?? 0, DISSENT_MIN_GAP);
  const top = chosen.score;
  return last.candidates
    .filter((c) => c.agent_id !== chosen.agent && finite(c.score) && round6(top - c.score) > gap)
    .map((c) => c.agent_id);
}

/** The value each gate reads from a verdict, or null when the server did not report it. */
export function gateActual(verdict: CouncilVerdict, name: GateName): number | null {
  switch (name) {
    case 'min-convergence':
      return verdict.convergence.final;
    case 'max-wrong':
      return verdict.claims.chosen_counts?.wrong ?? null;
    case 'max-contested':
      return verdict.claims.chosen_counts?.contested ?? null;
    case 'min-score':
      return verdict.chosen?.score ?? null;
    case 'min-margin':
      return verdict.margin;
  }
}

/** `min-*` gates pass at or above their threshold, `max-*` gates at or below it. */
export const isMinimum = (name: GateName): boolean => name.startsWith('min-');

/**
 * Judges the verdict against every gate set, combined with AND: any failed check fails the
 * whole; otherwise any check whose value is null makes it inconclusive (never a silent pass).
 */
export function judgeGates(verdict: CouncilVerdict, gates: Gates): GateResult {
  const checks: GateCheck[] = [];
  for (const name of GATE_NAMES) {
    const expected = gates[name];
    if (expected === undefined) continue;
    const actual = gateActual(verdict, name);
    const ok = actual !== null && (isMinimum(name) ? actual >= expected : actual <= expected);
    checks.push({ name, expected, actual, status: actual === null ? 'inconclusive' : ok ? 'pass' : 'fail' });
  }
  const status: GateStatus = checks.some((c) => c.status === 'fail')
    ? 'fail'
    : checks.some((c) => c.status === 'inconclusive')
      ? 'inconclusive'
      : 'pass';
  return { status, checks };
}

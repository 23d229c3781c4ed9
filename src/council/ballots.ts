import type { CouncilDetails, DetailsDisagreement, DetailsEvaluation, Stance } from '../protocol/details.js';
import type { AgentInfo, Verdict as ClaimVerdict } from '../protocol/wire.js';

/**
 * Who voted how, and how far to trust the vote: pure functions over what the server sent
 * (`/details`, `/agents`), documented with their formulas in docs/ndjson.md §4b. Nothing is
 * guessed: a figure the server gave nothing to compute from is null.
 */

/** Worst first: duplicates of one claim keep the worst verdict (docs/protocol.md §4.4; `unknown` ranks above `verified`). */
export const VERDICT_SEVERITY: readonly ClaimVerdict[] = ['wrong', 'contested', 'unverified', 'unknown', 'verified'];

/** The worse of two verdicts. */
export const worseVerdict = (a: ClaimVerdict, b: ClaimVerdict): ClaimVerdict =>
  VERDICT_SEVERITY.indexOf(a) <= VERDICT_SEVERITY.indexOf(b) ? a : b;

/** Stances that endorse a proposal, and those that dissent from it. */
const ENDORSING: readonly Stance[] = ['agree', 'strong_agree'];
const DISSENTING: readonly Stance[] = ['disagree', 'strong_disagree'];

/** One evaluator's ballot on the chosen proposal in the final round. */
export interface Ballot {
  evaluator: string;
  stance: Stance | null;
  score: number | null;
  synthetic: boolean | null;
  /** Its verdict on each claim of the chosen proposal (duplicates merged, worst verdict wins). */
  claims: Array<{ claim: string; verdict: ClaimVerdict }>;
  disagreements: DetailsDisagreement[];
  reason: string | null;
}

/** One cell of the final round's evaluator × proposal matrix. */
export interface BallotCell {
  evaluator: string;
  target: string;
  score: number | null;
  stance: Stance | null;
  synthetic: boolean | null;
}

export interface Ballots {
  /** The round the ballots are from: the last one the chosen proposal was evaluated in. */
  round: number;
  chosen: Ballot[];
  matrix: BallotCell[];
}

export interface Dissenter {
  agent: string;
  stance: Stance;
  reason: string | null;
}

export interface Trust {
  /** Real (not synthetic) evaluators that agree or strongly agree with the chosen proposal, of the real ones with a stance. */
  endorse: { count: number; of: number } | null;
  /** Fleiss' kappa over the real evaluators' verdicts on the chosen proposal's claims; null under two real evaluators. */
  agreement: number | null;
  /** Synthetic evaluations / all evaluations: in the final round, and over the whole deliberation. */
  synthetic_share: { final: number | null; all: number | null };
  /** As the server reports them for the final round (`/details` rounds, or the native round summary). */
  decisiveness: number | null;
  controversy: number | null;
  /** Distinct model families and providers of the council (from `/agents`); null when it was not listed. */
  diversity: { families: string[]; providers: string[] } | null;
}

export interface Trajectory {
  /** The leader of each scored round. */
  leaders: Array<{ round: number; agent: string }>;
  /** The rounds whose leader differs from the round before. */
  lead_changes: number[];
  /** The first round whose convergence reached the final value, or null. */
  settled_round: number | null;
  /** Claims verified in a losing proposal of the last scored round that the chosen proposal does not make. */
  dropped_claims: Array<{ claim: string; agent: string }>;
}

/**
 * The one share the server's sources give (undefined: a source it did not send; null: one that
 * leaves it unknown), or null when a source leaves it unknown or two disagree: the ballots of
 * /details flagging no stand-in while the native round summary counts 0 real and 3 synthetic
 * evaluations is no known share, and a gate on it is inconclusive, never a pass.
 */
function agreedShare(sources: ReadonlyArray<number | null | undefined>): number | null {
  const given = sources.filter((s) => s !== undefined);
  if (given.length === 0 || given.some((s) => s === null)) return null;
  return given.every((s) => s === given[0]) ? (given[0] ?? null) : null;
}

const share = (part: number, whole: number): number | null => (whole === 0 ? null : round4(part / whole));
const round4 = (n: number): number => Math.round(n * 1e4) / 1e4;
const claimKey = (c: { id: string | null; claim: string }): string =>
  c.id !== null && c.id !== '' ? `id:${c.id}` : `text:${normalise(c.claim)}`;
export const normalise = (claim: string): string => claim.trim().replace(/\s+/g, ' ').toLowerCase();

/** The final round's evaluations of each proposal, and the round number. */
function finalRound(
  details: CouncilDetails,
  chosen: string,
): { round: number; evaluations: Map<string, DetailsEvaluation[]> } | null {
  const ofChosen = details.entries.filter((e) => e.author === chosen);
  if (ofChosen.length === 0) return null;
  const round = Math.max(...ofChosen.map((e) => e.round));
  const evaluations = new Map<string, DetailsEvaluation[]>();
  for (const e of details.entries)
    if (e.round === round) evaluations.set(e.author, [...(evaluations.get(e.author) ?? []), ...e.evaluations]);
  return { round, evaluations };
}

function ballotOf(e: DetailsEvaluation): Ballot {
  const merged = new Map<string, { claim: string; verdict: ClaimVerdict }>();
  for (const c of e.claims) {
    const key = claimKey(c);
    const seen = merged.get(key);
    merged.set(key, {
      claim: seen?.claim ?? c.claim,
      verdict: seen === undefined ? c.verdict : worseVerdict(seen.verdict, c.verdict),
    });
  }
  return {
    evaluator: e.evaluator,
    stance: e.stance,
    score: e.score,
    synthetic: e.synthetic,
    claims: [...merged.values()],
    disagreements: e.disagreements,
    reason: e.justification,
  };
}

/** The ballots of the chosen proposal and the final round's matrix, or null without details or a chosen agent. */
export function ballotsOf(details: CouncilDetails | null, chosen: string | null): Ballots | null {
  if (details === null || chosen === null) return null;
  const final = finalRound(details, chosen);
  if (final === null) return null;
  const matrix: BallotCell[] = [];
  for (const [target, evaluations] of final.evaluations)
    for (const e of evaluations)
      matrix.push({ evaluator: e.evaluator, target, score: e.score, stance: e.stance, synthetic: e.synthetic });
  // One ballot per evaluator: a repeated evaluation of the same proposal keeps the last.
  const byEvaluator = new Map<string, Ballot>();
  for (const e of final.evaluations.get(chosen) ?? []) byEvaluator.set(e.evaluator, ballotOf(e));
  return { round: final.round, chosen: [...byEvaluator.values()], matrix };
}

const isReal = (b: { synthetic: boolean | null }): boolean => b.synthetic !== true;

/**
 * Fleiss' kappa with a varying number of raters per subject: the subjects are the chosen
 * proposal's claims, the raters the real evaluators that judged each, the categories the five
 * verdicts. For claim i with n_i ≥ 2 ratings, n_ij of them in verdict j:
 *   P_i = Σ_j n_ij (n_ij − 1) / (n_i (n_i − 1)),  P̄ = mean of P_i,
 *   p_j = Σ_i n_ij / Σ_i n_i,  P̄e = Σ_j p_j²,  κ = (P̄ − P̄e) / (1 − P̄e).
 * When every rating is the same verdict (P̄e = 1) the raters agree perfectly and κ is 1.
 * Null under two real evaluators or with no claim judged by two of them.
 */
export function fleissKappa(ballots: readonly Ballot[]): number | null {
  const real = ballots.filter(isReal);
  if (real.length < 2) return null;
  const subjects = new Map<string, Map<ClaimVerdict, number>>();
  for (const b of real)
    for (const c of b.claims) {
      const key = `text:${normalise(c.claim)}`;
      const counts = subjects.get(key) ?? new Map<ClaimVerdict, number>();
      counts.set(c.verdict, (counts.get(c.verdict) ?? 0) + 1);
      subjects.set(key, counts);
    }
  const rated = [...subjects.values()].filter((m) => sum(m.values()) >= 2);
  if (rated.length === 0) return null;
  const totals = new Map<ClaimVerdict, number>();
  let ratings = 0;
  let pBar = 0;
  for (const m of rated) {
    const n = sum(m.values());
    ratings += n;
    let agree = 0;
    for (const [verdict, k] of m) {
      agree += k * (k - 1);
      totals.set(verdict, (totals.get(verdict) ?? 0) + k);
    }
    pBar += agree / (n * (n - 1));
  }
  pBar /= rated.length;
  let pe = 0;
  for (const k of totals.values()) pe += (k / ratings) ** 2;
  if (pe >= 1 - 1e-12) return 1;
  return round4((pBar - pe) / (1 - pe));
}

const sum = (xs: Iterable<number>): number => {
  let s = 0;
  for (const x of xs) s += x;
  return s;
};

/** The evaluators whose stance toward the chosen proposal is disagree or strong_disagree; null when no real ballot has a stance. */
export function dissentersOf(ballots: Ballots | null): Dissenter[] | null {
  const real = (ballots?.chosen ?? []).filter(isReal);
  if (!real.some((b) => b.stance !== null)) return null;
  return real.flatMap((b) =>
    b.stance !== null && DISSENTING.includes(b.stance)
      ? [{ agent: b.evaluator, stance: b.stance, reason: b.disagreements[0]?.position ?? b.reason }]
      : [],
  );
}

/**
 * A model's family: the name after any `provider/` prefix, up to its first character that is not
 * a letter (`gpt-4o` → `gpt`, `claude-3-5-sonnet` → `claude`, `llama3.1` → `llama`).
 */
export const familyOf = (model: string): string => {
  const name = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  return /^[a-z]+/.exec(name)?.[0] ?? name;
};

/** What the trust figures are computed from. */
export interface TrustSources {
  details: CouncilDetails | null;
  ballots: Ballots | null;
  /** The council's agents as `/agents` lists them (only those in the council), or null when not listed. */
  agents: readonly AgentInfo[] | null;
  /** The chosen agent, whose controversy the figures report. */
  chosen?: string | undefined;
  /** The native round summary's figures for the final round, when the stream carried them. */
  summary?:
    | { decisiveness: number | null; controversy: number | null; real: number | null; synthetic: number | null }
    | undefined;
}

export function trustOf(src: TrustSources): Trust {
  const { details, ballots } = src;
  const realWithStance = (ballots?.chosen ?? []).filter((b) => isReal(b) && b.stance !== null);
  const endorse =
    realWithStance.length === 0
      ? null
      : {
          count: realWithStance.filter((b) => ENDORSING.includes(b.stance as Stance)).length,
          of: realWithStance.length,
        };
  const finalCells = ballots?.matrix ?? [];
  const allEvaluations = details?.entries.flatMap((e) => e.evaluations) ?? [];
  const syntheticFinal = agreedShare([
    // An evaluation /details does not flag counts as real, as everywhere (isReal).
    ballots === null ? undefined : share(finalCells.filter((c) => c.synthetic === true).length, finalCells.length),
    src.summary === undefined || (src.summary.real === null && src.summary.synthetic === null)
      ? undefined
      : src.summary.real === null || src.summary.synthetic === null
        ? null
        : share(src.summary.synthetic, src.summary.real + src.summary.synthetic),
  ]);
  const finalRound = details?.rounds.find((r) => r.round === ballots?.round);
  const decisiveness = finalRound?.decisiveness ?? src.summary?.decisiveness ?? null;
  const families =
    src.agents === null
      ? null
      : [...new Set(src.agents.map((a) => familyOf(a.model_name)).filter((f) => f !== ''))].sort();
  const providers =
    src.agents === null ? null : [...new Set(src.agents.map((a) => a.provider_id).filter((p) => p !== ''))].sort();
  return {
    endorse,
    agreement: fleissKappa(ballots?.chosen ?? []),
    synthetic_share: {
      final: syntheticFinal,
      all:
        details === null
          ? null
          : share(allEvaluations.filter((e) => e.synthetic === true).length, allEvaluations.length),
    },
    decisiveness,
    controversy:
      (src.chosen === undefined ? undefined : finalRound?.controversy.get(src.chosen)) ??
      src.summary?.controversy ??
      null,
    diversity: families === null || providers === null ? null : { families, providers },
  };
}

/** The leader per scored round, where it changed, when convergence settled, and what the chosen proposal dropped. */
export function trajectoryOf(
  leaders: ReadonlyArray<{ round: number; agent: string }>,
  convergence: ReadonlyArray<{ round: number; value: number }> | null,
  lastRound: ReadonlyArray<{
    agent_id: string;
    claims: ReadonlyArray<{ claim: string; verdict: ClaimVerdict }>;
  }> | null,
  chosen: string | null,
): Trajectory | null {
  if (leaders.length === 0 && (convergence === null || convergence.length === 0)) return null;
  const lead_changes: number[] = [];
  for (let i = 1; i < leaders.length; i++)
    if (leaders[i]?.agent !== leaders[i - 1]?.agent) lead_changes.push(leaders[i]?.round ?? 0);
  const final = convergence?.at(-1)?.value;
  const settled = final === undefined ? undefined : convergence?.find((c) => c.value >= final);
  const made = new Set((lastRound?.find((c) => c.agent_id === chosen)?.claims ?? []).map((c) => normalise(c.claim)));
  const dropped: Array<{ claim: string; agent: string }> = [];
  const seen = new Set<string>();
  if (chosen !== null)
    for (const c of lastRound ?? [])
      if (c.agent_id !== chosen)
        for (const k of c.claims)
          if (k.verdict === 'verified' && !made.has(normalise(k.claim)) && !seen.has(normalise(k.claim))) {
            seen.add(normalise(k.claim));
            dropped.push({ claim: k.claim, agent: c.agent_id });
          }
  return { leaders: [...leaders], lead_changes, settled_round: settled?.round ?? null, dropped_claims: dropped };
}

import type { Verdict as ClaimVerdict } from './protocol/wire.js';

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

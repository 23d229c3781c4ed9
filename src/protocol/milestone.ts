/**
 * The one documented reasoning milestone that carries a number, `Round N complete — convergence: P%`
 * (docs/protocol.md §4.3). It is the only place the compat surface reports convergence, so the
 * verdict, the progress line and the round picture all read it here, with one pattern.
 */
const ROUND_CONVERGENCE = /round\s+(\d+)\s+complete\D{0,40}?convergence:?\s*(\d+(?:\.\d+)?)\s*%/gi;

export interface ConvergenceMilestone {
  round: number;
  /** 0-1: the milestone's percentage over 100. */
  value: number;
}

/** Every convergence milestone in `text` (one milestone or many, one per line), in order. */
export function convergenceMilestones(text: string): ConvergenceMilestone[] {
  const out: ConvergenceMilestone[] = [];
  for (const m of text.matchAll(ROUND_CONVERGENCE)) out.push({ round: Number(m[1]), value: Number(m[2]) / 100 });
  return out;
}

/** Convergence per round (the last milestone of a round wins: a replay repeats them). */
export function convergenceByRound(text: string | null): Map<number, number> {
  const out = new Map<number, number>();
  for (const m of convergenceMilestones(text ?? '')) out.set(m.round, m.value);
  return out;
}

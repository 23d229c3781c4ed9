import type { Verdict as ClaimVerdict } from '../../protocol/wire.js';
import type { CouncilVerdict, GateCheck, VerdictClaim } from '../../verdict.js';
import { percent, score } from './markdown-cells.js';

/** The order the reports (summary, html) list claim verdicts in: what needs a look first. */
export const VERDICT_ORDER: readonly ClaimVerdict[] = ['wrong', 'contested', 'unverified', 'unknown', 'verified'];

/** The chosen proposal's claims, verdict by verdict in VERDICT_ORDER, the verdicts without a claim left out. */
export function claimsByVerdict(v: CouncilVerdict): Array<{ verdict: ClaimVerdict; claims: readonly VerdictClaim[] }> {
  const chosen = v.claims.chosen;
  if (chosen === null) return [];
  return VERDICT_ORDER.map((verdict) => ({ verdict, claims: chosen[verdict] ?? [] })).filter(
    (g) => g.claims.length > 0,
  );
}

/** How each gate's bound reads in a report's table. */
export const GATE_EXPECT: Record<GateCheck['name'], string> = {
  'min-convergence': '≥',
  'max-wrong': '≤',
  'max-contested': '≤',
  'min-score': '≥',
  'min-margin': '≥',
};

/** A gate's expected or actual value as a report shows it: a count, a percentage or a score. */
export function gateValue(name: GateCheck['name'], n: number | null): string {
  if (n === null || !Number.isFinite(n)) return 'not reported';
  if (name === 'max-wrong' || name === 'max-contested') return String(n);
  return name === 'min-convergence' ? percent(n) : score(n);
}

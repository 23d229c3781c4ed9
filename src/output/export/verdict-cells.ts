import type { Verdict as ClaimVerdict } from '../../protocol/wire.js';
import type { CouncilVerdict, GateCheck, Trust, VerdictClaim } from '../../council/verdict.js';
import { percent, score } from './markdown-cells.js';

/** The order the reports (summary, html) list claim verdicts in: what needs a look first. */
export const VERDICT_ORDER: readonly ClaimVerdict[] = ['wrong', 'contested', 'unverified', 'unknown', 'verified'];

/** The chosen proposal's claims, verdict by verdict in VERDICT_ORDER, the verdicts without a claim left out. */
export function claimsByVerdict(v: CouncilVerdict): Array<{ verdict: ClaimVerdict; claims: readonly VerdictClaim[] }> {
  const chosen = v.claims?.chosen ?? null;
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
  'min-agreement': '≥',
  'min-endorse': '≥',
  'min-endorse-share': '≥',
  'max-synthetic': '≤',
  'max-cost': '≤',
};

/** A gate's expected or actual value as a report shows it: a count, a percentage or a score. */
export function gateValue(name: GateCheck['name'], n: number | null): string {
  if (n === null || !Number.isFinite(n)) return 'not reported';
  if (name === 'max-wrong' || name === 'max-contested' || name === 'min-endorse') return String(n);
  if (name === 'max-cost') return `$${n}`;
  return name === 'min-convergence' || name === 'min-endorse-share' || name === 'max-synthetic' ? percent(n) : score(n);
}

/** The dissenters with their stances, `none`, or `not reported` when the ballots carried no stance. */
export function dissentWords(v: CouncilVerdict, esc: (s: string) => string): string {
  if (v.dissent === null) return 'not reported';
  if (v.dissent.length === 0) return 'none';
  return v.dissent.map((d) => `${esc(d.agent)} (${d.stance.replace('_', ' ')})`).join(', ');
}

/** `3 of 4 real evaluators`, or `not reported`. */
export function endorseWords(t: Trust): string {
  return t.endorse === null ? 'not reported' : `${t.endorse.count} of ${t.endorse.of} real evaluators`;
}

/** `25% of the final round, 10% of all`, or `not reported`. */
export function syntheticWords(t: Trust): string {
  const { final, all } = t.synthetic_share;
  if (final === null && all === null) return 'not reported';
  return `${percent(final)} of the final round, ${percent(all)} of all`;
}

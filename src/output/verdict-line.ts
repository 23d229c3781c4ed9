import { oneLine } from '../terminal/sanitize.js';
import type { CouncilVerdict, GateResult } from '../council/verdict.js';
import { formatNumber } from './gate-lines.js';

/**
 * The verdict in one line, as `sessions show` and the markdown export print it under an answer:
 * `verdict · 3/3 rounds · convergence 0.87 (held 1) · chosen CortexA 0.78 · margin 0.22 over
 * CortexB · claims of the chosen proposal: 1 verified, 3 contested, 0 wrong · dissent CortexC`. What the server did not
 * report says so ("not reported"), never a guess.
 */
export function verdictSummary(v: CouncilVerdict): string {
  const parts = ['verdict'];
  const { completed, planned } = v.rounds;
  if (completed !== null || planned !== null) parts.push(`${completed ?? '?'}/${planned ?? '?'} rounds`);
  const c = v.convergence;
  parts.push(
    c.final === null ? 'convergence not reported' : `convergence ${formatNumber(c.final)} (held ${c.held ?? 1})`,
  );
  if (v.chosen === null) parts.push('chosen not reported');
  else {
    const score = v.chosen.score === null ? '' : ` ${formatNumber(v.chosen.score)}`;
    parts.push(`chosen ${oneLine(v.chosen.agent, 40)}${score}`);
  }
  if (v.margin !== null && v.runner_up !== null)
    parts.push(`margin ${formatNumber(v.margin)} over ${oneLine(v.runner_up.agent, 40)}`);
  const counts = v.claims?.chosen_counts ?? null;
  parts.push(
    counts === null
      ? 'claims not reported'
      : `claims of the chosen proposal: ${counts.verified} verified, ${counts.contested} contested, ${counts.wrong} wrong`,
  );
  if (v.trust.endorse !== null) parts.push(`endorsed ${v.trust.endorse.count} of ${v.trust.endorse.of}`);
  if (v.dissent !== null && v.dissent.length > 0)
    parts.push(`dissent ${v.dissent.map((d) => oneLine(d.agent, 40)).join(', ')}`);
  return parts.join(' · ');
}

/** `gate fail · max-contested 3 (at most 1) ✗ · min-convergence 0.87 (at least 0.8) ✓`. */
export function gateSummary(g: GateResult): string {
  const mark = { pass: '✓', fail: '✗', inconclusive: '?' } as const;
  const checks = g.checks.map((c) => {
    const actual = c.actual === null ? 'not reported' : formatNumber(c.actual);
    const bound = `${c.name.startsWith('min-') ? 'at least' : 'at most'} ${formatNumber(c.expected)}`;
    return `${c.name} ${actual} (${bound}) ${mark[c.status]}`;
  });
  return [`gate ${g.status}`, ...checks].join(' · ');
}

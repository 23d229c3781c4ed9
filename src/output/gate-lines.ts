import { isMinimum, type GateCheck, type GateName, type GateResult } from '../council/verdict.js';

/**
 * What each gate reads, in words (docs/ndjson.md "Gates"): the one wording every gate line, the
 * plain progress and the JUnit report use, so a count always says whose claims it counts.
 */
export const GATE_MEASURE: Record<GateName, string> = {
  'min-convergence': 'convergence',
  'max-wrong': 'wrong claims of the chosen proposal',
  'max-contested': 'contested claims of the chosen proposal',
  'min-score': "the chosen proposal's score",
  'min-margin': 'margin over the runner-up',
  'min-agreement': "the evaluators' agreement on the chosen proposal's claims (kappa)",
  'min-endorse': 'real evaluators endorsing the chosen proposal',
  'min-endorse-share': 'share of real evaluators endorsing the chosen proposal',
  'max-synthetic': 'share of synthetic evaluations in the final round',
  'max-cost': 'what the turn cost, in dollars',
};

/** Four decimals at most: a score of 0.8 shows as 0.8, a float residue never shows. */
export const formatNumber = (n: number): string => String(Math.round(n * 1e4) / 1e4);

const bound = (c: GateCheck): string => `${isMinimum(c.name) ? 'at least' : 'at most'} ${formatNumber(c.expected)}`;

/** One check in a sentence: `gate max-wrong failed: wrong claims of the chosen proposal 2, expected at most 0`. */
export function checkSentence(c: GateCheck): string {
  const what = GATE_MEASURE[c.name];
  switch (c.status) {
    case 'pass':
      return `gate ${c.name} passed: ${what} ${formatNumber(c.actual ?? 0)}, expected ${bound(c)}`;
    case 'fail':
      return `gate ${c.name} failed: ${what} ${formatNumber(c.actual ?? 0)}, expected ${bound(c)}`;
    case 'inconclusive':
      // Each measure is a whole phrase ("what the turn cost, in dollars"): no article goes before it.
      return c.reason === 'synthetic_votes'
        ? `gate ${c.name} inconclusive: ${what} ${formatNumber(c.actual ?? 0)} rests on a final round whose evaluations were mostly synthetic stand-ins (expected ${bound(c)}; see --max-synthetic)`
        : `gate ${c.name} inconclusive: the server did not report ${what} (expected ${bound(c)})`;
  }
}

/** The lines a run prints on stderr after a gate did not pass: each check that failed or could not be judged. */
export function gateProblemLines(result: GateResult): string[] {
  return result.checks.filter((c) => c.status !== 'pass').map((c) => `nsed: ${checkSentence(c)}`);
}

/** `nsed gate`'s text: a line per check, marked ✓ (pass), ✗ (fail) or ? (inconclusive). */
export function gateCheckLines(result: GateResult): string[] {
  const mark = { pass: '✓', fail: '✗', inconclusive: '?' } as const;
  return result.checks.map((c) => `${mark[c.status]} ${checkSentence(c)}`);
}

/**
 * The error a gate that did not pass ends the run with: `gate_failed` (exit 12) when any check
 * failed, else `inconclusive` (exit 13); a fail beats inconclusive. Undefined when it passed.
 */
export function gateFailure(result: GateResult): { code: 'gate_failed' | 'inconclusive'; message: string } | undefined {
  const n = result.checks.length;
  const failed = result.checks.filter((c) => c.status === 'fail').length;
  const unknown = result.checks.filter((c) => c.status === 'inconclusive').length;
  if (result.status === 'fail')
    return { code: 'gate_failed', message: `the council's verdict failed ${failed} of ${n} gate${n === 1 ? '' : 's'}` };
  if (result.status === 'inconclusive')
    return {
      code: 'inconclusive',
      message: `${unknown} of ${n} gate${n === 1 ? '' : 's'} could not be judged: the server did not report the value`,
    };
  return undefined;
}

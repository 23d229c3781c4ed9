import { canonicalJson } from '../protocol/canonical-json.js';
import { recordedGate } from '../output/export/report-turn.js';
import { GATE_NAMES, type Gates } from '../council/verdict.js';
import type { EarlierLine } from './earlier-results.js';

/**
 * Whether an earlier line was judged under these gates. Gates are outside the request's
 * identity (src/turn/idempotency/request-identity.ts): they judge an answer without changing the question.
 * An answered item's line records the checks it was judged by (name and expected value), so a
 * line judged under other gates does not stand and its item runs again; a line with no answer
 * to judge (error, failed, cancelled) was judged by nothing, and stands whatever the gates.
 */
export function judgedUnder(line: EarlierLine | undefined, gates: Gates | undefined): boolean {
  if (line === undefined) return false;
  if (line.status !== 'ok' && line.status !== 'gate_failed' && line.status !== 'inconclusive') return true;
  const wanted = GATE_NAMES.flatMap((name) => {
    const expected = gates?.[name];
    return expected === undefined ? [] : [[name, expected]];
  });
  const gate = recordedGate((line as unknown as Record<string, unknown>)['gate']);
  const had = gate === null ? [] : gate.checks.map((c) => [c.name, c.expected]);
  return canonicalJson(had) === canonicalJson(wanted);
}

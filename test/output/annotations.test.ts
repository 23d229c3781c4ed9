import { describe, expect, it } from 'vitest';
import { ANNOTATION_CAP, escapeData, escapeProperty, workflowAnnotations } from '../../src/output/annotations.js';
import type { VerdictClaim } from '../../src/council/verdict.js';
import { fullVerdict, nullVerdict } from './report-fixtures.js';

const claims = (n: number, what: string): VerdictClaim[] =>
  Array.from({ length: n }, (_, i) => ({ claim: `${what} ${i}`, reason: i === 0 ? null : `why ${i}` }));

describe('--annotate: GitHub workflow commands', () => {
  it('an ::error:: per wrong claim and a ::warning:: per contested one of the chosen proposal, then one ::notice::', () => {
    const out = workflowAnnotations(fullVerdict(), 'summary.md');
    expect(out.split('\n')).toEqual([
      '::error title=Wrong claim of CortexA::The table has no index — it has one since v2',
      '::warning title=Contested claim of CortexA::Downtime is zero',
      '::notice title=nsed council::CortexA chosen · claims of the chosen proposal: 1 wrong, 1 contested · summary: summary.md',
      '',
    ]);
  });

  it('caps each kind at 10 and says how many more there were', () => {
    const v = fullVerdict();
    const chosen = { ...v.claims!.chosen!, wrong: claims(25, 'w'), contested: claims(12, 'c') };
    const lines = workflowAnnotations({ ...v, claims: { ...v.claims!, chosen } }, 'x')
      .trimEnd()
      .split('\n');
    expect(lines.filter((l) => l.startsWith('::error '))).toHaveLength(ANNOTATION_CAP);
    expect(lines.filter((l) => l.startsWith('::warning '))).toHaveLength(ANNOTATION_CAP);
    expect(lines.at(-1)).toBe(
      '::notice title=nsed council::CortexA chosen · claims of the chosen proposal: 25 wrong, 12 contested · 17 more not annotated · summary: x',
    );
    expect(lines).toHaveLength(21);
  });

  it('without a verdict, or with nothing reported, gives only the notice', () => {
    expect(workflowAnnotations(null, 'x')).toBe('::notice title=nsed council::no verdict was recorded · summary: x\n');
    expect(workflowAnnotations(nullVerdict, 'x')).toBe(
      '::notice title=nsed council::no chosen proposal reported · claims not reported · summary: x\n',
    );
  });

  it('escapes what GitHub reads as its own syntax, so a claim cannot issue a command of its own', () => {
    expect(escapeData('50% done\r\n::set-env name=X::1')).toBe('50%25 done%0D%0A::set-env name=X::1');
    expect(escapeProperty('a:b,c%\n')).toBe('a%3Ab%2Cc%25%0A');
    const v = fullVerdict({ chosen: { agent: 'Ev:il,Agent', score: 1, source: 'finalized' } });
    const chosen = { ...v.claims!.chosen!, wrong: [{ claim: 'x\n::error::forged', reason: '100%' }], contested: [] };
    const out = workflowAnnotations({ ...v, claims: { ...v.claims!, chosen } }, 's');
    expect(out.split('\n')[0]).toBe('::error title=Wrong claim of Ev%3Ail%2CAgent::x%0A::error::forged — 100%25');
    expect(out.split('\n').filter((l) => l.startsWith('::'))).toHaveLength(2);
  });
});

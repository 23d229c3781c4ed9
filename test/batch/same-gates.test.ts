import { describe, expect, it } from 'vitest';
import type { EarlierLine } from '../../src/batch/earlier-results.js';
import { judgedUnder } from '../../src/batch/same-gates.js';

/**
 * Gates are outside the request's identity (src/turn/idempotency/request-identity.ts), so `batch --resume`
 * tells a line judged under other gates by the checks it records (docs/reliability.md #161).
 */
const line = (status: EarlierLine['status'], gate: unknown): EarlierLine =>
  ({ id: 'a', index: 0, batch: 'b', request_hash: 'h', status, exit_code: 0, gate }) as EarlierLine;
const judged = (expected: number) => ({
  status: 'pass',
  checks: [{ name: 'min-convergence', expected, actual: 0.9, status: 'pass' }],
});

describe('whether an earlier line was judged under the gates given now (reliability #161)', () => {
  it('an answer judged under the same gates stands; under other gates, or none, it does not', () => {
    expect(judgedUnder(line('ok', judged(0.6)), { 'min-convergence': 0.6 })).toBe(true);
    expect(judgedUnder(line('ok', judged(0.6)), { 'min-convergence': 0.7 })).toBe(false);
    expect(judgedUnder(line('ok', judged(0.6)), undefined)).toBe(false);
    expect(judgedUnder(line('ok', null), { 'max-wrong': 0 })).toBe(false);
    expect(judgedUnder(line('ok', null), undefined)).toBe(true);
    expect(judgedUnder(line('gate_failed', judged(0.99)), { 'min-convergence': 0.99 })).toBe(true);
  });

  it('a line with no answer to judge stands whatever the gates; a line edited out of shape does not', () => {
    expect(judgedUnder(line('error', null), { 'min-convergence': 0.6 })).toBe(true);
    expect(judgedUnder(line('failed', null), { 'min-convergence': 0.6 })).toBe(true);
    expect(judgedUnder(line('ok', { checks: 'nope' }), { 'min-convergence': 0.6 })).toBe(false);
    expect(judgedUnder(undefined, undefined)).toBe(false);
  });
});

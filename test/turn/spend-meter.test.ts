import { describe, expect, it } from 'vitest';
import { capStop } from '../../src/council/spend-cap.js';
import { judgeMeter, type MeterInput } from '../../src/turn/spend-meter.js';

/** The decisions of a spend cap, as values (docs/reliability.md #233, #235); the e2e runs are in spend-ceiling.test.ts. */

describe('capStop: a cap is a ceiling (reliability #233)', () => {
  it('stops at a boundary where spent plus the rounds’ average would pass the cap, and not before', () => {
    const cap = { maxCostUsd: 0.025 };
    expect(capStop(cap, { cost: 0.008, tokens: null }, { rounds: 1, total: 5 })).toBeUndefined();
    expect(capStop(cap, { cost: 0.0184, tokens: null }, { rounds: 2, total: 5 })).toEqual({
      cap: 'cost',
      limit: 0.025,
      spent: 0.0184,
      expected: 0.0092,
    });
  });

  it('does not project past the last round, nor away from a boundary; what was spent still stops it', () => {
    const cap = { maxTokens: 10_000 };
    expect(capStop(cap, { cost: null, tokens: 9000 }, { rounds: 3, total: 3 })).toBeUndefined();
    expect(capStop(cap, { cost: null, tokens: 9000 }, null)).toBeUndefined();
    expect(capStop(cap, { cost: null, tokens: 10_000 }, null)).toEqual({ cap: 'tokens', limit: 10_000, spent: 10_000 });
  });

  it('an unknown figure crosses nothing', () => {
    expect(capStop({ maxCostUsd: 0.01, maxTokens: 10 }, { cost: null, tokens: null }, { rounds: 2, total: 5 })).toBe(
      undefined,
    );
  });
});

describe('judgeMeter: a meter that cannot be believed is no reading (reliability #235)', () => {
  const base: MeterInput = {
    budget: null,
    read: 'answered',
    boundMs: 4000,
    reported: null,
    ceiling: { input: 3, output: 15 },
    roundUsd: 0.02,
    rounds: 1,
  };
  const budget = (b: Record<string, unknown>): unknown => ({ budget: b });

  it('believes sound figures', () => {
    const j = judgeMeter({
      ...base,
      budget: budget({ total_input_tokens: 1000, total_output_tokens: 500, estimated_cost_usd: 0.008 }),
    });
    expect(j).toMatchObject({ spent: { cost: 0.008, tokens: 1500 }, costFrom: 'meter', doubt: null });
  });

  it('negative totals fall back to the estimate of the rounds run', () => {
    const j = judgeMeter({
      ...base,
      rounds: 2,
      budget: budget({ total_input_tokens: -1000, total_output_tokens: -500, estimated_cost_usd: -0.008 }),
    });
    expect(j.spent).toEqual({ cost: 0.04, tokens: null });
    expect(j.costFrom).toBe('estimate');
    expect(j.doubt).toMatch(/reports total_input_tokens -1000/);
  });

  it('$0 for tokens /agents prices is priced at the highest listed prices', () => {
    const j = judgeMeter({
      ...base,
      budget: budget({ total_input_tokens: 1000, total_output_tokens: 500, estimated_cost_usd: 0 }),
    });
    expect(j.spent.cost).toBe(0.0105);
    expect(j.costFrom).toBe('tokens');
    expect(j.doubt).toMatch(/reports \$0 for 1500 tokens of 1 round/);
  });

  it('0 tokens after a round ran, or a late read, leave tokens unknown; the estimate stands for dollars', () => {
    const zero = judgeMeter({ ...base, budget: budget({ total_input_tokens: 0, total_output_tokens: 0 }) });
    expect(zero).toMatchObject({ spent: { cost: 0.02, tokens: null }, costFrom: 'estimate' });
    const late = judgeMeter({ ...base, read: 'late' });
    expect(late).toMatchObject({ spent: { cost: 0.02, tokens: null }, costFrom: 'estimate' });
    expect(late.doubt).toMatch(/did not answer within 4 s/);
  });

  it('with neither prices nor an estimate, nothing gives the dollars', () => {
    const j = judgeMeter({ ...base, ceiling: null, roundUsd: null, budget: budget({ total_input_tokens: 'NaN' }) });
    expect(j).toMatchObject({ spent: { cost: null, tokens: null }, costFrom: null });
  });
});

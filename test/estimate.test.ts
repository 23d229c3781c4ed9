// The pure estimate (src/council/estimate.ts): listed per-round prices × the rounds, unknown never 0.
import { describe, expect, it } from 'vitest';
import { estimateBatch, estimateTurn, type EstimateInput } from '../src/council/estimate.js';

const input = (over: Partial<EstimateInput> = {}): EstimateInput => ({
  council: ['A', 'B'],
  councilFrom: 'policy p',
  maxRounds: 3,
  roundsFrom: "policy p's max_rounds",
  listing: [
    { agent_id: 'A', estimated_cost_per_round: 0.001 },
    { agent_id: 'B', estimated_cost_per_round: 0.002, input_price_per_mtok: 1, output_price_per_mtok: 4 },
  ],
  ...over,
});

describe('estimateTurn', () => {
  it('sums the council a round and multiplies by the fewest and the most rounds', () => {
    const e = estimateTurn(input());
    expect(e.cost_per_round_usd).toBe(0.003);
    expect(e.low).toEqual({ input_tokens: null, output_tokens: null, cost_usd: 0.003, cost_source: 'estimated' });
    expect(e.high.cost_usd).toBe(0.009);
    expect(e.rounds).toEqual({ min: 1, max: 3 });
  });
  it('one member without a per-round price makes the whole estimate unknown, never a partial sum or 0', () => {
    const e = estimateTurn(
      input({
        listing: [
          { agent_id: 'A', estimated_cost_per_round: 0.001 },
          { agent_id: 'B', input_price_per_mtok: 1, output_price_per_mtok: 4 },
        ],
      }),
    );
    expect(e.cost_per_round_usd).toBeNull();
    expect(e.low).toMatchObject({ cost_usd: null, cost_source: 'unknown' });
    expect(e.high).toMatchObject({ cost_usd: null, cost_source: 'unknown' });
    expect(e.agents[1]).toEqual({
      agent_id: 'B',
      cost_per_round_usd: null,
      input_price_per_mtok: 1,
      output_price_per_mtok: 4,
    });
    expect(e.assumes.join('\n')).toContain('no estimated_cost_per_round for B');
  });
  it('no council, no rounds or no listing: unknown, and the assumptions say why', () => {
    expect(estimateTurn(input({ council: null, councilFrom: 'not listed' })).high.cost_usd).toBeNull();
    expect(estimateTurn(input({ maxRounds: null, roundsFrom: 'not listed' })).high.cost_usd).toBeNull();
    const none = estimateTurn(input({ listing: null }));
    expect(none.high.cost_usd).toBeNull();
    expect(none.assumes).toContain('GET /agents lists no agents, so no prices');
  });
  it("a batch's total sums the known items and counts the unknown apart", () => {
    const known = { estimate: estimateTurn(input()) };
    const unknown = { estimate: estimateTurn(input({ listing: null })) };
    const b = estimateBatch([known, unknown, known]);
    expect(b.total.high).toEqual({
      input_tokens: null,
      output_tokens: null,
      cost_usd: 0.018,
      unknown_cost_turns: 1,
      turns: 3,
    });
    expect(estimateBatch([unknown]).total.low.cost_usd).toBeNull();
  });
});

describe('a council member the listing does not know', () => {
  it('has no price, and the assumptions say it is not listed rather than unpriced', () => {
    const e = estimateTurn(input({ council: ['A', 'Z'] }));
    expect(e.high.cost_usd).toBeNull();
    expect(e.assumes).toContain('GET /agents does not list Z, so no price for it');
    expect(e.assumes.join('\n')).not.toContain('no estimated_cost_per_round');
  });
});

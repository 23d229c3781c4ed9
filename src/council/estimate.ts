/**
 * What a turn is expected to cost before it is sent (docs/ndjson.md "Estimate"): the council's
 * listed per-round prices (`GET /agents` `estimated_cost_per_round`) times the rounds it may run,
 * as a range from converging after the first round to running every round. Pure: the command
 * reads `/agents` and `/policies` and hands the figures here. In the words of src/council/usage.ts: each
 * end of the range is a Usage whose `cost_source` is `estimated`, or `unknown` with `cost_usd`
 * null when a price or the council is not known, never 0. Tokens are not estimated (null): a
 * listing prices rounds, and how many tokens a round takes is known only once it ran.
 */

import { cents, sumUsage, type Usage, type UsageTotal } from './usage.js';

/** The part of a `GET /agents` entry an estimate reads (docs/protocol.md §3.15). */
export interface ListedPrices {
  agent_id: string;
  estimated_cost_per_round?: number;
  input_price_per_mtok?: number;
  output_price_per_mtok?: number;
}

/** What the estimate is made from; each `from` says where the figure came from, for `assumes`. */
export interface EstimateInput {
  /** The council's agent ids, or null when nothing before the turn says who sits on it. */
  council: readonly string[] | null;
  /** Where the council came from (`--agents`, `policy balanced`), or why it is not known. */
  councilFrom: string;
  /** The most rounds the deliberation may run, or null when not known. */
  maxRounds: number | null;
  /** Where the rounds came from (`--rounds`, `policy balanced's max_rounds`), or why not known. */
  roundsFrom: string;
  /** `GET /agents`, or null when the server lists no agents. */
  listing: readonly ListedPrices[] | null;
}

/** One member of the council and what `/agents` lists for it (null: not listed). */
export interface AgentEstimate {
  agent_id: string;
  cost_per_round_usd: number | null;
  input_price_per_mtok: number | null;
  output_price_per_mtok: number | null;
}

export interface TurnEstimate {
  council: string[] | null;
  /** The fewest rounds (the council converges after the first) and the most it may run. */
  rounds: { min: number; max: number } | null;
  agents: AgentEstimate[];
  /** One round of the whole council; null when any member's price is unknown. */
  cost_per_round_usd: number | null;
  /** The range's ends: `low` converges after the first round, `high` runs every round. */
  low: Usage;
  high: Usage;
  /** What the figures take for granted, in words, one sentence each. */
  assumes: string[];
}

const known = (n: number | undefined): number | null =>
  typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : null;

const estimated = (cost: number | null): Usage => ({
  input_tokens: null,
  output_tokens: null,
  cost_usd: cost,
  cost_source: cost === null ? 'unknown' : 'estimated',
});

/** The range a turn may cost, and what it assumes (see the top of this file). */
export function estimateTurn(input: EstimateInput): TurnEstimate {
  const assumes: string[] = [];
  const listed = new Map((input.listing ?? []).map((a) => [a.agent_id, a]));
  const agents: AgentEstimate[] = (input.council ?? []).map((id) => {
    const a = listed.get(id);
    return {
      agent_id: id,
      cost_per_round_usd: known(a?.estimated_cost_per_round),
      input_price_per_mtok: known(a?.input_price_per_mtok),
      output_price_per_mtok: known(a?.output_price_per_mtok),
    };
  });
  if (input.council === null) assumes.push(`the council is not known: ${input.councilFrom}`);
  else assumes.push(`the council is ${input.council.join(', ')} (${input.councilFrom})`);
  const rounds = input.maxRounds === null ? null : { min: Math.min(1, input.maxRounds), max: input.maxRounds };
  if (rounds === null) assumes.push(`the rounds are not known: ${input.roundsFrom}`);
  else if (rounds.min === rounds.max)
    assumes.push(`the deliberation runs ${rounds.max} round${rounds.max === 1 ? '' : 's'} (${input.roundsFrom})`);
  else
    assumes.push(
      `the deliberation runs at least ${rounds.min} round (the council converges early) and at most ${rounds.max} (${input.roundsFrom})`,
    );
  if (input.listing === null) assumes.push('GET /agents lists no agents, so no prices');
  else if (input.council !== null) {
    const unlisted = agents.filter((a) => !listed.has(a.agent_id));
    if (unlisted.length > 0)
      assumes.push(`GET /agents does not list ${unlisted.map((a) => a.agent_id).join(', ')}, so no price for it`);
    const unpriced = agents.filter((a) => a.cost_per_round_usd === null && listed.has(a.agent_id));
    if (unpriced.length === 0 && unlisted.length === 0)
      assumes.push('each round costs each agent the estimated_cost_per_round GET /agents lists for it');
    else if (unpriced.length > 0)
      assumes.push(
        `GET /agents lists no estimated_cost_per_round for ${unpriced.map((a) => a.agent_id).join(', ')}: ` +
          'per-token prices alone do not say what a round costs, as its tokens are known only once it ran',
      );
  }
  assumes.push('tokens are not estimated; tool calls, retries and --schema corrections are not counted');
  const perRound =
    input.council === null || agents.length === 0 || agents.some((a) => a.cost_per_round_usd === null)
      ? null
      : cents(agents.reduce((sum, a) => sum + (a.cost_per_round_usd ?? 0), 0));
  const times = (n: number | undefined): number | null =>
    perRound === null || n === undefined ? null : cents(perRound * n);
  return {
    council: input.council === null ? null : [...input.council],
    rounds,
    agents,
    cost_per_round_usd: perRound,
    low: estimated(times(rounds?.min)),
    high: estimated(times(rounds?.max)),
    assumes,
  };
}

/** A batch's estimate: each item's, and their sums (the items whose cost is unknown counted apart). */
export interface BatchEstimate<T extends { estimate: TurnEstimate }> {
  items: T[];
  total: { low: UsageTotal; high: UsageTotal };
}

export function estimateBatch<T extends { estimate: TurnEstimate }>(items: readonly T[]): BatchEstimate<T> {
  return {
    items: [...items],
    total: {
      low: sumUsage(items.map((i) => i.estimate.low)),
      high: sumUsage(items.map((i) => i.estimate.high)),
    },
  };
}

/**
 * A spend cap (docs/ci.md "Spend caps"): `--max-cost USD` and `--max-tokens N`, or the config keys
 * `max_cost` and `max_tokens`, or NSED_MAX_COST and NSED_MAX_TOKENS. Before each round, nsed
 * cancels the deliberation when what it spent plus what the round is expected to cost would pass
 * the cap, and exits 15; a round in flight can pass it by what it costs more than those before
 * it (docs/reliability.md #230, #233). A
 * cap is a ceiling on what is spent, not a part of what is asked: it never shapes the request
 * (src/turn/idempotency/request-identity.ts).
 *
 * The values' rule (a positive number of dollars, a positive whole number of tokens) is their
 * flags' (commands/shared/setting-flags.ts), checked by one function for every place they come
 * from: a flag, the environment, the config file, an MCP tool argument (setting-rule.ts).
 */

import { dollars, type CapCrossed, type Prices } from './usage.js';

export type { CapCrossed } from './usage.js';

export interface SpendCap {
  /** Dollars; the cap is crossed when the usage's cost reaches or passes it. */
  maxCostUsd?: number | undefined;
  /** Input plus output tokens. */
  maxTokens?: number | undefined;
}

/** The cap of a turn, with whether the user accepts a server that cannot meter it. */
export interface TurnCap extends SpendCap {
  /** --allow-unmetered: run even where the server reports neither usage nor a budget. */
  allowUnmetered?: boolean | undefined;
}

/** Whether a cap is set at all. */
export const hasCap = (c: SpendCap | undefined): c is SpendCap =>
  c !== undefined && (c.maxCostUsd !== undefined || c.maxTokens !== undefined);

/** A cap a turn enforces, with the prices its dollars are estimated at where the server reports only tokens. */
export interface MeteredCap extends SpendCap {
  /**
   * The highest input and output prices `/agents` lists: `/budget`'s tokens (which name no agent)
   * priced at them bound the real cost from above, so an estimated cap stops no later than a
   * reported one would. null: the server listed none.
   */
  ceiling: Prices | null;
  /**
   * What one round of the council is expected to cost (the estimate's `cost_per_round_usd`,
   * src/council/estimate.ts): the first round's expected cost, and the cost a round is counted at where the
   * server's meter cannot be believed. null: nothing lists it.
   */
  roundUsd: number | null;
  /** --allow-unmetered: a cap that cannot act is said, and the run goes on. */
  allowUnmetered: boolean;
}

/** What the spend watch knows of a cap when the turn ends: `usage.cap_enforced` and `usage.capped` in `-o json`. */
export interface CapReport {
  /** false once a cap could not act on anything (said on stderr): the run went on without it. */
  enforced: boolean;
  /** What stopped the turn at its cap, or null. */
  capped: CapCrossed | null;
}

/** Dollars and tokens spent so far, as far as anything believable says (null: nothing does). */
export interface Spent {
  cost: number | null;
  tokens: number | null;
}

/**
 * Whether a turn stops at its cap now: what was spent has reached it, or, at the boundary after
 * `rounds` scored rounds of `total`, what was spent plus what the next round is expected to add
 * (the average of the rounds so far) would pass it. A cap is a ceiling, so the round that would
 * cross it is never started; only a round in flight that costs more than the rounds before it
 * can still pass it. An unknown figure crosses nothing: it is not 0, and it is not past the cap.
 */
export function capStop(
  cap: SpendCap,
  spent: Spent,
  boundary: { rounds: number; total: number } | null,
): CapCrossed | undefined {
  for (const d of ['cost', 'tokens'] as const) {
    const limit = d === 'cost' ? cap.maxCostUsd : cap.maxTokens;
    const n = spent[d];
    if (limit === undefined || n === null) continue;
    if (n >= limit) return { cap: d, limit, spent: n };
    if (boundary === null || boundary.rounds < 1 || boundary.rounds >= boundary.total) continue;
    const next = d === 'cost' ? Math.round((n / boundary.rounds) * 1e8) / 1e8 : Math.ceil(n / boundary.rounds);
    if (n + next > limit) return { cap: d, limit, spent: n, expected: next };
  }
  return undefined;
}

/** `the cost cap of $0.5 ($0.62 spent)` / `the token cap of 20000 (13220 used, and the next round was expected to use 3305)`. */
export function describeCrossed(c: CapCrossed): string {
  const money = (n: number): string => dollars({ cost_usd: n, cost_source: 'reported' });
  if (c.cap === 'cost')
    return `the cost cap of $${c.limit} (${money(c.spent)} spent${c.expected === undefined ? '' : `, and the next round was expected to cost ${money(c.expected)}`})`;
  return `the token cap of ${c.limit} (${c.spent} used${c.expected === undefined ? '' : `, and the next round was expected to use ${c.expected}`})`;
}

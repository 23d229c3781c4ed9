/**
 * A spend cap (README "Spend caps"): `--max-cost USD` and `--max-tokens N`, or the config keys
 * `max_cost` and `max_tokens`, or NSED_MAX_COST and NSED_MAX_TOKENS. Once a deliberation's live
 * usage crosses it, nsed cancels the deliberation and exits 15 (docs/reliability.md #230). A
 * cap is a ceiling on what is spent, not a part of what is asked: it never shapes the request
 * (src/turn/idempotency/request-identity.ts).
 *
 * The values are checked here, once, for every place they come from (a flag, the environment,
 * the config file, an MCP tool argument), so that each says the same line.
 */

import { usageError } from './errors.js';
import { dollars, type Prices, type Usage } from './usage.js';

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

const asNumber = (v: unknown): number => (typeof v === 'string' && v.trim() !== '' ? Number(v) : (v as number));

/** A positive, finite number of dollars, from a flag, env or config value; `name` names it in the error. */
export function parseMaxCost(v: unknown, name: string): number {
  const n = asNumber(v);
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0)
    throw usageError(`${name} must be a positive number of dollars, e.g. 0.50`);
  return n;
}

/** A positive whole number of tokens (input plus output). */
export function parseMaxTokens(v: unknown, name: string): number {
  const n = asNumber(v);
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n <= 0)
    throw usageError(`${name} must be a positive whole number of tokens, e.g. 20000`);
  return n;
}

/** A cap a turn enforces, with the prices its dollars are estimated at where the server reports only tokens. */
export interface MeteredCap extends SpendCap {
  /**
   * The highest input and output prices `/agents` lists: `/budget`'s tokens (which name no agent)
   * priced at them bound the real cost from above, so an estimated cap stops no later than a
   * reported one would. null: the server listed none.
   */
  ceiling: Prices | null;
}

/** What crossed a cap, as the turn records and says it. */
export interface CapCrossed {
  /** Which cap: dollars or tokens. */
  cap: 'cost' | 'tokens';
  limit: number;
  /** The figure that reached it. */
  spent: number;
}

/**
 * Whether a usage has reached the cap: the cost (reported or estimated) against `maxCostUsd`, the
 * tokens in and out against `maxTokens`. An unknown figure crosses nothing: it is not 0, and it
 * is not past the cap either.
 */
export function capCrossed(cap: SpendCap, usage: Usage): CapCrossed | undefined {
  if (cap.maxCostUsd !== undefined && usage.cost_usd !== null && usage.cost_usd >= cap.maxCostUsd)
    return { cap: 'cost', limit: cap.maxCostUsd, spent: usage.cost_usd };
  const tokens =
    usage.input_tokens === null && usage.output_tokens === null
      ? null
      : (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0);
  if (cap.maxTokens !== undefined && tokens !== null && tokens >= cap.maxTokens)
    return { cap: 'tokens', limit: cap.maxTokens, spent: tokens };
  return undefined;
}

/** `the cost cap of $0.5 ($0.62 spent)` / `the token cap of 20000 (23110 used)`. */
export function describeCrossed(c: CapCrossed): string {
  return c.cap === 'cost'
    ? `the cost cap of $${c.limit} (${dollars({ cost_usd: c.spent, cost_source: 'reported' })} spent)`
    : `the token cap of ${c.limit} (${c.spent} used)`;
}

/**
 * What a turn cost, as data (docs/ndjson.md "Usage"): tokens in and out, dollars, and where the
 * dollars came from. Unknown is `null`, never 0: a server that reports nothing gives a usage whose
 * every figure is null and whose `cost_source` is `unknown`, and sums keep unknown turns apart.
 */

import type { TokenUsage } from '../protocol/details.js';

export type { TokenUsage } from '../protocol/details.js';

export type CostSource = 'reported' | 'estimated' | 'unknown';

export interface Usage {
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  /** `reported` by the server, `estimated` from prices × tokens (or the server's own estimate), `unknown`. */
  cost_source: CostSource;
  /**
   * Under a spend cap only, on a turn's last event (docs/ci.md "Spend caps"): false when the cap could
   * not act on anything and the run went on without it (said on stderr).
   */
  cap_enforced?: boolean;
  /** Under a spend cap only, on a turn's last event: what stopped the turn at its cap, or null. */
  capped?: CapCrossed | null;
}

/** What stopped a turn at its spend cap (src/council/spend-cap.ts), as the turn records and says it and `-o json`'s usage shows it. */
export interface CapCrossed {
  /** Which cap: dollars or tokens. */
  cap: 'cost' | 'tokens';
  limit: number;
  /** What was spent when it stopped. */
  spent: number;
  /**
   * What the next round was expected to add (the rounds so far, else the estimate) when the
   * turn stopped at a round's boundary because spent plus this would pass the cap; absent when
   * what was spent reached the cap itself (the round in flight crossed it).
   */
  expected?: number;
}

export const UNKNOWN_USAGE: Usage = { input_tokens: null, output_tokens: null, cost_usd: null, cost_source: 'unknown' };

/** What `GET /deliberation/{id}/budget` says so far (docs/protocol.md §3.7). */
export interface BudgetFigures {
  input_tokens: number | null;
  output_tokens: number | null;
  estimated_cost_usd: number | null;
}

/** An agent's prices, dollars per million tokens, as `/agents` lists them. */
export interface Prices {
  input: number;
  output: number;
}

export interface UsageSources {
  /** The job's totals (native `job_complete.token_usage`). */
  totals?: TokenUsage | null | undefined;
  /** Each call of the history with its agent (`/details`). */
  calls?: ReadonlyArray<{ agent: string; usage: TokenUsage }> | null | undefined;
  /** `/budget`'s figures. */
  budget?: BudgetFigures | null | undefined;
  /** The compat stream's `usage` (tokens only). */
  stream?: { input_tokens: number; output_tokens: number } | null | undefined;
  /** Prices per agent, for an estimate where the server reports tokens but no dollars. */
  prices?: ReadonlyMap<string, Prices> | null | undefined;
}

const finite = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
/** Dollars rounded to 1e-8, so sums of prices read as the prices do (no 0.30000000000000004). */
export const cents = (n: number): number => Math.round(n * 1e8) / 1e8;

/** Sums a figure over items; null when any item lacks it (a partial sum would read as a total). */
function total<T>(items: readonly T[], of: (t: T) => number | null): number | null {
  if (items.length === 0) return null;
  let sum = 0;
  for (const t of items) {
    const n = of(t);
    if (!finite(n)) return null;
    sum += n;
  }
  return sum;
}

/**
 * The turn's usage from what the server sent, in the order it is trusted: the job's reported
 * totals; the calls of its history (their reported dollars, else their tokens at each agent's
 * listed prices, an estimate); `/budget`'s totals and estimate; the compat stream's tokens.
 */
export function usageOf(src: UsageSources): Usage {
  const calls = src.calls ?? [];
  const callTokens = {
    input: total(calls, (c) => c.usage.input_tokens),
    output: total(calls, (c) => c.usage.output_tokens),
  };
  const input =
    pick(src.totals?.input_tokens, callTokens.input, src.budget?.input_tokens, src.stream?.input_tokens) ?? null;
  const output =
    pick(src.totals?.output_tokens, callTokens.output, src.budget?.output_tokens, src.stream?.output_tokens) ?? null;
  const base = { input_tokens: input, output_tokens: output };
  if (finite(src.totals?.reported_cost_usd))
    return { ...base, cost_usd: cents(src.totals.reported_cost_usd), cost_source: 'reported' };
  const reported = total(calls, (c) => c.usage.reported_cost_usd);
  if (reported !== null) return { ...base, cost_usd: cents(reported), cost_source: 'reported' };
  const estimate = estimated(calls, src.prices);
  if (estimate !== null) return { ...base, cost_usd: cents(estimate), cost_source: 'estimated' };
  if (finite(src.budget?.estimated_cost_usd))
    return { ...base, cost_usd: cents(src.budget.estimated_cost_usd), cost_source: 'estimated' };
  return { ...base, cost_usd: null, cost_source: 'unknown' };
}

const pick = (...xs: Array<number | null | undefined>): number | undefined => xs.find(finite);

/** Σ tokens × the calling agent's prices; null when a call's tokens or its agent's prices are missing. */
function estimated(
  calls: ReadonlyArray<{ agent: string; usage: TokenUsage }>,
  prices: ReadonlyMap<string, Prices> | null | undefined,
): number | null {
  if (prices == null || calls.length === 0) return null;
  return total(calls, (c) => {
    const p = prices.get(c.agent);
    const { input_tokens: i, output_tokens: o } = c.usage;
    if (p === undefined || !finite(i) || !finite(o)) return null;
    return (i * p.input + o * p.output) / 1e6;
  });
}

/** A session's or a batch's total: known figures summed, the turns that reported none counted apart. */
export interface UsageTotal {
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  /** Turns whose cost is unknown: their dollars are in no sum. */
  unknown_cost_turns: number;
  turns: number;
}

export function sumUsage(list: readonly Usage[]): UsageTotal {
  const known = (of: (u: Usage) => number | null): number | null => {
    const xs = list.map(of).filter(finite);
    return xs.length === 0 ? null : cents(xs.reduce((a, b) => a + b, 0));
  };
  return {
    input_tokens: known((u) => u.input_tokens),
    output_tokens: known((u) => u.output_tokens),
    cost_usd: known((u) => u.cost_usd),
    unknown_cost_turns: list.filter((u) => u.cost_usd === null).length,
    turns: list.length,
  };
}

/** `$0.042`: two significant digits under a dollar, cents above. */
export function money(n: number): string {
  return `$${n < 1 ? n.toPrecision(2).replace(/0+$/, '').replace(/\.$/, '') : n.toFixed(2)}`;
}

/** `$0.042`, `$0.042 (estimated)`, or `cost unknown`. */
export function dollars(u: Pick<Usage, 'cost_usd' | 'cost_source'>): string {
  if (u.cost_usd === null) return 'cost unknown';
  return `${money(u.cost_usd)}${u.cost_source === 'estimated' ? ' (estimated)' : ''}`;
}

/** Reads a recorded or saved usage; anything not of its shape is unknown. */
export function readUsage(v: unknown): Usage {
  if (typeof v !== 'object' || v === null) return UNKNOWN_USAGE;
  const r = v as Record<string, unknown>;
  const n = (x: unknown): number | null => (typeof x === 'number' && finite(x) ? x : null);
  const source = r['cost_source'];
  const cost = n(r['cost_usd']);
  return {
    input_tokens: n(r['input_tokens']),
    output_tokens: n(r['output_tokens']),
    cost_usd: cost,
    cost_source: cost === null ? 'unknown' : source === 'reported' || source === 'estimated' ? source : 'unknown',
  };
}

/** Reads a saved total (the listing index's); anything not of its shape is null, and is read again from the session. */
export function readUsageTotal(v: unknown): UsageTotal | null {
  if (typeof v !== 'object' || v === null) return null;
  const r = v as Record<string, unknown>;
  const figure = (x: unknown): x is number | null => x === null || finite(x as number);
  const count = (x: unknown): x is number => Number.isInteger(x) && (x as number) >= 0;
  const { input_tokens: i, output_tokens: o, cost_usd: c, unknown_cost_turns: u, turns: t } = r;
  if (!figure(i) || !figure(o) || !figure(c) || !count(u) || !count(t)) return null;
  return { input_tokens: i, output_tokens: o, cost_usd: c, unknown_cost_turns: u, turns: t };
}

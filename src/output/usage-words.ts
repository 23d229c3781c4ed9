import { dollars, money, type Usage, type UsageTotal } from '../council/usage.js';

/**
 * What a turn or a session cost, in the words every human-facing report uses (`sessions show`,
 * the step summary, the HTML page): docs/ndjson.md §4d. An unknown cost is said to be unknown,
 * never shown as $0.00, and a total over answers of unknown cost is a lower bound and says so.
 */

const count = (n: number): string => n.toLocaleString('en-US');

/** `6,932 tokens in, 2,727 out`; a figure the server did not report is `not reported`. */
export function tokenWords(u: Pick<Usage, 'input_tokens' | 'output_tokens'>): string {
  if (u.input_tokens === null && u.output_tokens === null) return 'tokens not reported';
  const side = (n: number | null): string => (n === null ? 'not reported' : count(n));
  return `${side(u.input_tokens)} tokens in, ${side(u.output_tokens)} out`;
}

/** `cost $0.042 · 6,932 tokens in, 2,727 out`; `cost $0.042 (estimated) · …`; `cost unknown · …`. */
export function usageWords(u: Usage): string {
  const cost = u.cost_usd === null ? 'cost unknown' : `cost ${dollars(u)}`;
  return `${cost} · ${tokenWords(u)}`;
}

/**
 * A session's total: `cost $0.084 over 2 answers · …`; with answers of unknown cost, `cost at
 * least $0.042 (1 of 2 answers' cost unknown) · …`; none known, `cost unknown (2 answers) · …`.
 */
export function totalWords(t: UsageTotal): string {
  const answers = `${t.turns} answer${t.turns === 1 ? '' : 's'}`;
  let cost: string;
  if (t.cost_usd === null) cost = `cost unknown (${answers})`;
  else if (t.unknown_cost_turns > 0)
    cost = `cost at least ${money(t.cost_usd)} (${t.unknown_cost_turns} of ${answers}' cost unknown)`;
  else cost = `cost ${money(t.cost_usd)} over ${answers}`;
  return `${cost} · ${tokenWords(t)}`;
}

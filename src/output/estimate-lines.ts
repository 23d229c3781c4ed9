import type { BatchEstimate, TurnEstimate } from '../council/estimate.js';
import { oneLine } from '../terminal/sanitize.js';
import { money, type Usage, type UsageTotal } from '../council/usage.js';

/** A turn's estimate as the command prints it: the model it would send and its path beside the figures. */
export type ShownEstimate = TurnEstimate & { policy: string; path: string };

/** `$0.0051 to $0.015`, one figure when both ends agree, or `cost unknown`. */
function range(low: Pick<Usage, 'cost_usd'>, high: Pick<Usage, 'cost_usd'>): string {
  if (low.cost_usd === null || high.cost_usd === null) return 'cost unknown';
  return low.cost_usd === high.cost_usd ? money(low.cost_usd) : `${money(low.cost_usd)} to ${money(high.cost_usd)}`;
}

const roundsOf = (e: TurnEstimate): string =>
  e.rounds === null
    ? 'rounds unknown'
    : `${e.rounds.min === e.rounds.max ? e.rounds.max : `${e.rounds.min} to ${e.rounds.max}`} round${e.rounds.max === 1 ? '' : 's'}`;

const councilOf = (e: TurnEstimate): string =>
  e.council === null ? 'an unknown council' : oneLine(e.council.join(', '), 200);

/** The headline: what the turn may cost, for how many rounds of whom. */
const headline = (e: ShownEstimate): string =>
  `${range(e.low, e.high)}${e.low.cost_usd === null ? '' : ' (estimated)'}: ${roundsOf(e)} of ${councilOf(e)}`;

const assumptions = (lines: readonly string[]): string =>
  `assumes:\n${lines.map((l) => `  - ${oneLine(l, 300)}\n`).join('')}`;

/** `-o text`: the range, each agent's price a round, what it assumes, and that nothing was sent. */
export function estimateText(e: ShownEstimate): string {
  const width = Math.max(0, ...e.agents.map((a) => a.agent_id.length));
  const agents = e.agents
    .map(
      (a) =>
        `  ${oneLine(a.agent_id, 60).padEnd(width)}  ${a.cost_per_round_usd === null ? 'price unknown' : `${money(a.cost_per_round_usd)} a round`}\n`,
    )
    .join('');
  return (
    `estimate for ${oneLine(e.policy, 80)} (${e.path}): ${headline(e)}\n` +
    agents +
    assumptions(e.assumes) +
    'nothing was sent\n'
  );
}

/** A batch's total: known figures summed, the items whose cost is unknown counted apart. */
function totalText(total: { low: UsageTotal; high: UsageTotal }): string {
  const n = total.high.turns;
  const unknown = Math.max(total.low.unknown_cost_turns, total.high.unknown_cost_turns);
  const sum = range(total.low, total.high);
  const apart = unknown === 0 ? '' : ` (${unknown} item${unknown === 1 ? '' : 's'} of unknown cost, not in the sum)`;
  return `total for ${n} item${n === 1 ? '' : 's'}: ${sum}${total.low.cost_usd === null ? '' : ' (estimated)'}${apart}\n`;
}

/** `-o text` of `batch --estimate`: a line per item, the total, and every assumption once. */
export function batchEstimateText(b: BatchEstimate<{ id: string; estimate: ShownEstimate }>): string {
  const items = b.items.map((i) => `item ${oneLine(i.id, 60)}: ${headline(i.estimate)}\n`).join('');
  const assumes = [...new Set(b.items.flatMap((i) => i.estimate.assumes))];
  return items + totalText(b.total) + assumptions(assumes) + 'nothing was sent\n';
}

import type { Context } from '../run/context.js';
import { estimateBatch, type BatchEstimate } from '../council/estimate.js';
import { estimateOf, type EstimateSources, type TurnEstimateOf } from '../turn/estimate-turn.js';
import { askedModel } from '../turn/turn-options.js';
import type { TurnOptions } from '../turn/turn-options.js';
import type { ResolvedItem } from './resolve.js';
import { itemTurnOptions } from './run-item.js';

/** One item's estimate: the turn it would run, as `ask --estimate` prices it. */
export interface ItemEstimate {
  id: string;
  index: number;
  estimate: TurnEstimateOf;
}

/**
 * Each item's estimate (its own policy, agents and rounds over the command line's) and their
 * totals, from one read of `/agents` and `/policies` (docs/ndjson.md "Estimate").
 */
export function estimateItems(
  ctx: Context,
  items: readonly ResolvedItem[],
  turn: TurnOptions,
  sources: EstimateSources,
): BatchEstimate<ItemEstimate> {
  return estimateBatch(
    items.map((item) => {
      const opts = itemTurnOptions(item, turn);
      return {
        id: item.id,
        index: item.index,
        estimate: estimateOf(ctx, askedModel(opts, ctx.globals.settings), opts, sources),
      };
    }),
  );
}

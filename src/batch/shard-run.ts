import type { TurnCap } from '../council/spend-cap.js';
import type { ResolvedItem } from './resolve.js';
import type { ResultLine } from './run-item.js';
import { inShard, type Shard } from './shard.js';
import { shardCap, shardCapText } from './shard-cap.js';
import { flagsSha256, itemsSha256, type ShardFlags } from './shard-identity.js';
import { itemsOfPlan, type ShardPlan } from './shard-plan.js';

/** One shard's run, decided before anything is sent: its items, the cap it keeps, the stamp of its lines. */
export interface ShardRun {
  items: ResolvedItem[];
  cap: TurnCap | undefined;
  stamp: NonNullable<ResultLine['shard']>;
  /** The stderr line that says which cap this shard keeps; undefined without a cap. */
  capText: string | undefined;
}

/**
 * `batch --shard I/N [--shard-plan FILE]`: the shard's items (by the plan, else by a hash of each
 * id), its share of the matrix's cap (batch/shard-cap.ts) and the stamp `batch merge` checks.
 */
export function shardRun(
  shard: Shard,
  all: readonly ResolvedItem[],
  flags: ShardFlags,
  cap: TurnCap,
  plan: { plan: ShardPlan; file: string } | undefined,
): ShardRun {
  const itemsSha = itemsSha256(all);
  const items =
    plan === undefined
      ? all.filter((i) => inShard(i.id, shard))
      : itemsOfPlan(plan.plan, plan.file, shard, all, itemsSha);
  const byCost = plan?.plan.by === 'cost';
  const weight = byCost
    ? { own: plan.plan.weights[shard.index - 1] ?? 0, all: plan.plan.weights.reduce((a, b) => a + b, 0) }
    : { own: items.length, all: all.length };
  const kept = shardCap(cap, flags.maxCostPerShard, weight);
  return {
    items,
    cap: kept.cap,
    stamp: {
      index: shard.index,
      count: shard.count,
      items_sha256: itemsSha,
      flags_sha256: flagsSha256(flags),
      items: items.length,
      split: plan === undefined ? 'hash' : 'plan',
      cap: kept.report,
    },
    capText: kept.report === null ? undefined : shardCapText(shard, kept.report, weight, byCost ? 'cost' : 'count'),
  };
}

import { hasCap, type TurnCap } from '../council/spend-cap.js';
import { money } from '../council/usage.js';
import { shardName, type Shard } from './shard.js';

/**
 * The spend cap one shard of a matrix keeps (docs/ci.md "Spend caps"): `--max-cost` and
 * `--max-tokens` under `--shard I/N` are the whole matrix's, so each shard keeps its share of
 * them, its weight over the matrix's (its items over all items, or with a plan made `--by cost`,
 * its estimated cost over the matrix's), rounded down so the shares never add up past the cap.
 * `--max-cost-per-shard` caps each machine on its own; with both, the lower holds.
 */
export interface ShardCap {
  /** What this shard enforces, as the batch's own cap. */
  cap: TurnCap | undefined;
  /** The matrix's caps as given, and this shard's share: `-o json` and the result lines carry it. */
  report: ShardCapReport | null;
}

export interface ShardCapReport {
  /** `matrix`: the caps are the whole matrix's and this is a share; `shard`: --max-cost-per-shard alone. */
  scope: 'matrix' | 'shard';
  max_cost_usd: number | null;
  max_tokens: number | null;
  max_cost_per_shard_usd: number | null;
  /** This shard's share of the matrix's caps (the fraction), null without a matrix cap. */
  share: number | null;
  /** What this shard enforces. */
  shard_max_cost_usd: number | null;
  shard_max_tokens: number | null;
}

export interface ShardWeight {
  /** This shard's weight (items, or estimated dollars) and the whole matrix's. */
  own: number;
  all: number;
}

const floorCents = (usd: number): number => Math.floor(usd * 100 + 1e-9) / 100;

export function shardCap(cap: TurnCap, perShardUsd: number | undefined, weight: ShardWeight): ShardCap {
  const matrix = hasCap(cap);
  if (!matrix && perShardUsd === undefined) return { cap: undefined, report: null };
  const share = matrix ? (weight.all <= 0 ? 0 : Math.min(1, weight.own / weight.all)) : null;
  const costShare = cap.maxCostUsd === undefined || share === null ? undefined : floorCents(cap.maxCostUsd * share);
  const tokensShare = cap.maxTokens === undefined || share === null ? undefined : Math.floor(cap.maxTokens * share);
  const cost =
    perShardUsd === undefined ? costShare : costShare === undefined ? perShardUsd : Math.min(costShare, perShardUsd);
  const own: TurnCap = {
    ...(cost === undefined ? {} : { maxCostUsd: cost }),
    ...(tokensShare === undefined ? {} : { maxTokens: tokensShare }),
    ...(cap.allowUnmetered === true ? { allowUnmetered: true } : {}),
  };
  return {
    cap: own,
    report: {
      scope: matrix ? 'matrix' : 'shard',
      max_cost_usd: cap.maxCostUsd ?? null,
      max_tokens: cap.maxTokens ?? null,
      max_cost_per_shard_usd: perShardUsd ?? null,
      share,
      shard_max_cost_usd: cost ?? null,
      shard_max_tokens: tokensShare ?? null,
    },
  };
}

/** The stderr line that says which cap this shard keeps, and why it is not the number given. */
export function shardCapText(shard: Shard, r: ShardCapReport, weight: ShardWeight, by: 'count' | 'cost'): string {
  const name = shardName(shard);
  if (r.scope === 'shard')
    return `shard ${name}: --max-cost-per-shard ${money(r.max_cost_per_shard_usd ?? 0)} caps this machine alone`;
  const given = [
    ...(r.max_cost_usd === null ? [] : [`--max-cost ${money(r.max_cost_usd)}`]),
    ...(r.max_tokens === null ? [] : [`--max-tokens ${r.max_tokens}`]),
  ].join(' and ');
  // The share as the matrix gives it; what holds may be lower (--max-cost-per-shard).
  const share = r.share ?? 0;
  const kept = [
    ...(r.max_cost_usd === null ? [] : [money(floorCents(r.max_cost_usd * share))]),
    ...(r.shard_max_tokens === null ? [] : [`${r.shard_max_tokens} tokens`]),
  ].join(' and ');
  const of =
    by === 'count'
      ? `${weight.own} of ${weight.all} items`
      : `${money(weight.own)} of the matrix's ${money(weight.all)} estimated`;
  const lower =
    r.max_cost_per_shard_usd !== null && r.shard_max_cost_usd === r.max_cost_per_shard_usd
      ? `; --max-cost-per-shard ${money(r.max_cost_per_shard_usd)} is lower and holds`
      : '';
  return `shard ${name}: ${given} ${given.includes(' and ') ? 'are' : 'is'} the whole matrix's; this shard keeps to its share, ${kept} (${of})${lower}`;
}

import { usageError } from '../errors.js';
import { oneLine } from '../terminal/sanitize.js';
import { cents } from '../council/usage.js';
import type { ResolvedItem } from './resolve.js';
import { shardName, type Shard } from './shard.js';

/** How `batch plan` balances the shards: as many items each, or as much expected cost each. */
export type PlanBy = 'count' | 'cost';

/**
 * A plan file (`batch plan --out FILE`, read by `batch --shard-plan FILE`): which shard runs each
 * item, for the items it was made from (`items_sha256`, batch/shard-identity.ts), and each
 * shard's weight (items, or estimated dollars), which a shard's share of a matrix cap follows.
 */
export interface ShardPlan {
  v: 1;
  kind: 'nsed-shard-plan';
  shards: number;
  by: PlanBy;
  items_sha256: string;
  items: number;
  /** Per shard, 1 first: its items (by count) or its estimated dollars (by cost). */
  weights: number[];
  /** Each item's shard (1-based), by id. */
  assign: Record<string, number>;
}

/** A plan and what it had to assume: items whose cost no estimate gives are counted at the mean of the others. */
export interface PlanResult {
  plan: ShardPlan;
  unknownCost: number;
}

const MAX_SHARDS = 256;

function checkShardCount(n: number): void {
  if (!Number.isInteger(n) || n < 1 || n > MAX_SHARDS)
    throw usageError(`--shards must be a whole number from 1 to ${MAX_SHARDS}`, 'e.g. --shards 4');
}

/**
 * By count: the items dealt in file order, so no two shards differ by more than one item. By cost:
 * longest first onto the lightest shard (ties: the lower shard, then the item earlier in the
 * file), which keeps the heaviest shard within a third of the best balance; an item with no
 * estimate weighs the mean of those with one, and when none has one, the plan is by count.
 */
export function planShards(
  items: readonly ResolvedItem[],
  shards: number,
  by: PlanBy,
  itemsSha: string,
  estimates: ReadonlyMap<string, number | null> = new Map(),
): PlanResult {
  checkShardCount(shards);
  const assign: Record<string, number> = {};
  const weights = Array.from({ length: shards }, () => 0);
  const known = items.map((i) => estimates.get(i.id) ?? null).filter((e): e is number => e !== null);
  if (by === 'count' || known.length === 0) {
    items.forEach((item, n) => {
      const s = (n % shards) + 1;
      assign[item.id] = s;
      weights[s - 1] = (weights[s - 1] ?? 0) + 1;
    });
    return {
      plan: {
        v: 1,
        kind: 'nsed-shard-plan',
        shards,
        by: 'count',
        items_sha256: itemsSha,
        items: items.length,
        weights,
        assign,
      },
      unknownCost: by === 'cost' ? items.length : 0,
    };
  }
  const mean = known.reduce((a, b) => a + b, 0) / known.length;
  const weighed = items.map((item) => ({ item, cost: estimates.get(item.id) ?? mean }));
  weighed.sort((a, b) => b.cost - a.cost || a.item.index - b.item.index);
  for (const { item, cost } of weighed) {
    let lightest = 0;
    for (let s = 1; s < shards; s++) if ((weights[s] ?? 0) < (weights[lightest] ?? 0)) lightest = s;
    weights[lightest] = cents((weights[lightest] ?? 0) + cost);
    assign[item.id] = lightest + 1;
  }
  return {
    plan: { v: 1, kind: 'nsed-shard-plan', shards, by, items_sha256: itemsSha, items: items.length, weights, assign },
    unknownCost: items.length - known.length,
  };
}

/** The GitHub matrix of a plan (`strategy.matrix: ${{ fromJSON(...) }}`): one leg per shard. */
export const planMatrix = (shards: number): { include: Array<{ shard: string }> } => ({
  include: Array.from({ length: shards }, (_, i) => ({ shard: shardName({ index: i + 1, count: shards }) })),
});

/**
 * A plan file read back. It is the user's file, read by the one reader: anything that is not a
 * plan of this shape is refused (exit 2) naming the file, never half trusted.
 */
export function parsePlan(text: string, file: string): ShardPlan {
  const bad = (why: string) =>
    usageError(
      `--shard-plan ${oneLine(file, 200)} is not a shard plan: ${why}`,
      'make it with nsed batch plan ITEMS --shards N --out FILE',
    );
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw bad('it is not JSON');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad('it is not an object');
  const o = v as Record<string, unknown>;
  if (o['kind'] !== 'nsed-shard-plan' || o['v'] !== 1) throw bad('its kind is not nsed-shard-plan, v 1');
  const shards = o['shards'];
  if (typeof shards !== 'number' || !Number.isInteger(shards) || shards < 1 || shards > MAX_SHARDS)
    throw bad('its shards is not a whole number from 1 to 256');
  if (typeof o['items_sha256'] !== 'string') throw bad('it has no items_sha256');
  const weights = o['weights'];
  if (!Array.isArray(weights) || weights.length !== shards || !weights.every((w) => typeof w === 'number' && w >= 0))
    throw bad('its weights are not one number per shard');
  const assign = o['assign'];
  if (typeof assign !== 'object' || assign === null || Array.isArray(assign)) throw bad('it has no assign object');
  for (const s of Object.values(assign as Record<string, unknown>))
    if (typeof s !== 'number' || !Number.isInteger(s) || s < 1 || s > shards) throw bad('an item is assigned no shard');
  return {
    v: 1,
    kind: 'nsed-shard-plan',
    shards,
    by: o['by'] === 'cost' ? 'cost' : 'count',
    items_sha256: o['items_sha256'],
    items: typeof o['items'] === 'number' ? o['items'] : Object.keys(assign).length,
    weights: weights as number[],
    assign: assign as Record<string, number>,
  };
}

/**
 * The items a plan gives this shard: the plan must be for these items (the same hash) and as many
 * shards as --shard says (exit 2 otherwise, before anything is sent).
 */
export function itemsOfPlan(
  plan: ShardPlan,
  file: string,
  shard: Shard,
  items: readonly ResolvedItem[],
  itemsSha: string,
): ResolvedItem[] {
  if (plan.shards !== shard.count)
    throw usageError(
      `--shard ${shardName(shard)} does not match --shard-plan ${oneLine(file, 200)}, made for ${plan.shards} shards`,
      `give --shard I/${plan.shards}, or make the plan again with --shards ${shard.count}`,
    );
  if (plan.items_sha256 !== itemsSha)
    throw usageError(
      `--shard-plan ${oneLine(file, 200)} was made for other items (or another --template) than these`,
      'make the plan again from this items file: nsed batch plan ITEMS --shards N --out FILE',
    );
  return items.filter((i) => plan.assign[i.id] === shard.index);
}

import { createHash } from 'node:crypto';
import { usageError } from '../errors.js';

export interface Shard {
  /** 1-based, as CI matrices count. */
  index: number;
  count: number;
}

/** `--shard I/N`: I from 1 to N. */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d{1,4})\s*\/\s*(\d{1,4})\s*$/.exec(text);
  const index = m === null ? Number.NaN : Number(m[1]);
  const count = m === null ? Number.NaN : Number(m[2]);
  if (!Number.isInteger(index) || !Number.isInteger(count) || count < 1 || index < 1 || index > count)
    throw usageError(`--shard must be I/N with I from 1 to N, not '${text.slice(0, 20)}'`, 'e.g. --shard 2/4');
  return { index, count };
}

/**
 * Whether an item belongs to a shard: by a hash of its id (the first 4 bytes of its SHA-256,
 * mod N), not its position, so adding or removing an item moves no other item to another shard.
 */
export function inShard(id: string, shard: Shard): boolean {
  return shardIndexOf(id, shard.count) === shard.index;
}

/** The shard (1-based) of N that an item's id falls in, without a plan. */
export function shardIndexOf(id: string, count: number): number {
  return (createHash('sha256').update(id).digest().readUInt32BE(0) % count) + 1;
}

/**
 * What every result line of a sharded batch carries (`shard` on the line, docs/reliability.md "Batches"): its
 * place in the matrix, and what the matrix shares, so that `batch merge` joins only shards of one
 * batch. `items_sha256`: every item of the file, as resolved (the template filled), before the
 * split; `flags_sha256`: the flags that decide what is asked and judged (batch/shard-identity.ts);
 * `items`: how many items this shard holds, so a merge can tell a shard cut short; `split`: whether
 * the items were split by a hash of each id or by a plan file (`--shard-plan`).
 */
export interface ShardStamp {
  index: number;
  count: number;
  items_sha256: string;
  flags_sha256: string;
  items: number;
  split: 'hash' | 'plan';
}

/** The one spelling of a shard in messages and matrices: `2/4`. */
export const shardName = (s: Pick<Shard, 'index' | 'count'>): string => `${s.index}/${s.count}`;

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
  const n = createHash('sha256').update(id).digest().readUInt32BE(0);
  return n % shard.count === shard.index - 1;
}

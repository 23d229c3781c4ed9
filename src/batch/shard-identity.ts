import { createHash } from 'node:crypto';
import { canonicalJson } from '../protocol/canonical-json.js';
import type { ResolvedItem } from './resolve.js';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The items of a whole batch, as run (each prompt filled from the template, its own files,
 * model, gates), in file order: two shards made from other items, or the same file under another
 * template, hash apart, and `batch merge` refuses to join them.
 */
export const itemsSha256 = (items: readonly ResolvedItem[]): string => sha256(canonicalJson(items));

/**
 * What makes two shards' runs one batch beside the items: the flags that shape each item's request
 * (those marked `shapesRequest` in the flag table, as given), the gates that judge it, the pass
 * rate, and the matrix's spend caps. Timeouts, -j, --out and the reports are each machine's own.
 */
export interface ShardFlags {
  request: Readonly<Record<string, unknown>>;
  gates: unknown;
  minPassRate: number | undefined;
  maxCostUsd: number | undefined;
  maxTokens: number | undefined;
  maxCostPerShard: number | undefined;
}

export const flagsSha256 = (f: ShardFlags): string =>
  sha256(
    canonicalJson({
      request: f.request,
      gates: f.gates ?? null,
      min_pass_rate: f.minPassRate ?? null,
      max_cost_usd: f.maxCostUsd ?? null,
      max_tokens: f.maxTokens ?? null,
      max_cost_per_shard: f.maxCostPerShard ?? null,
    }),
  );

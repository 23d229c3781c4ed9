import type { Context } from '../run/context.js';
import type { SessionStore } from '../session/index.js';
import { oneLine } from '../terminal/sanitize.js';
import { boundsOf } from '../files/read-input.js';
import { readEarlierResults, stillStands, type EarlierLine } from './earlier-results.js';
import { findLeftItems } from './left-items.js';
import type { ResolvedItem } from './resolve.js';
import { itemRequestHash, type ItemInputBase, type LeftItem } from './run-item.js';
import { judgedUnder } from './same-gates.js';
import type { Gates } from '../council/verdict.js';
import type { Usage } from '../council/usage.js';

export interface ResumeInput {
  items: readonly ResolvedItem[];
  /** The command line's turn flags and inputs: with each item, its request (src/turn/idempotency/request-identity.ts). */
  base: ItemInputBase;
  /** The command line's gates; an item's own gates go on top of them. */
  gates: Gates | undefined;
  /** The results file, absolute. */
  out: string;
  retryErrors: boolean;
  /** --no-save: no session of this run or an earlier one is looked for. */
  noSave: boolean;
}

export interface ResumePlan {
  /** The first run's id, kept; undefined when nothing of the batch is found (a new id is made). */
  batchId: string | undefined;
  /** What runs now: the items left running first (they are paid for), then the rest in file order. */
  toRun: ResolvedItem[];
  left: Map<string, LeftItem>;
  /** Each item's request hash, by id (none for an item whose input cannot be read). */
  hashes: Map<string, string>;
  /** The lines that stand for the items not run again. */
  earlier: EarlierLine[];
  cutTail: boolean;
  /** What the earlier runs spent, every line of the file: a batch cap counts it (docs/reliability.md #243). */
  spent: Usage[];
}

/**
 * `nsed batch --resume` (docs/reliability.md #147, #148, #149): an item whose last line in --out
 * is for the same request is done (with --retry-errors, unless it is `error` or `failed`); an
 * item a killed run left running is followed through its session; every other item runs.
 */
export async function planResume(ctx: Context, store: SessionStore, input: ResumeInput): Promise<ResumePlan> {
  const results = await readEarlierResults(input.out, boundsOf(ctx));
  const hashes = new Map<string, string>();
  for (const item of input.items) {
    const hash = await itemRequestHash(ctx, item, input.base);
    if (hash !== undefined) hashes.set(item.id, hash);
  }
  const earlier: EarlierLine[] = [];
  const rest: ResolvedItem[] = [];
  for (const item of input.items) {
    const line = results.last.get(item.id);
    // Gates are outside the request: an answer judged under other gates is run again, as before.
    const gates = item.gates === undefined ? input.gates : { ...input.gates, ...item.gates };
    if (stillStands(line, hashes.get(item.id) ?? '', input.retryErrors) && judgedUnder(line, gates)) earlier.push(line);
    else rest.push(item);
  }
  const found = input.noSave
    ? { left: new Map<string, LeftItem>(), batchId: results.batchId }
    : await findLeftItems(store, {
        batchId: results.batchId,
        out: input.out,
        hashes: new Map(rest.map((i) => [i.id, hashes.get(i.id) ?? ''])),
      });
  const toRun = [...rest.filter((i) => found.left.has(i.id)), ...rest.filter((i) => !found.left.has(i.id))];
  if (!ctx.io.quiet) {
    const file = oneLine(input.out, 200);
    if (results.skipped > 0)
      ctx.io.stderr.write(
        `nsed: warning: --out ${file}: ${results.skipped} line${results.skipped === 1 ? ' is' : 's are'} not result lines (cut by a crash?), skipped\n`,
      );
    ctx.io.stderr.write(
      `resuming ${found.batchId ?? 'a new batch'}: ${earlier.length} done, ${found.left.size} to follow, ${toRun.length - found.left.size} to run\n`,
    );
  }
  return {
    batchId: found.batchId,
    toRun,
    left: found.left,
    hashes,
    earlier,
    cutTail: results.cutTail,
    spent: results.spent,
  };
}

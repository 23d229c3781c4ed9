import type { Connection } from '../run/connection.js';
import type { Context } from '../run/context.js';
import { meterCap } from '../turn/spend-watch.js';
import { hasCap, type SpendCap, type TurnCap } from '../council/spend-cap.js';
import { readEstimateSources } from '../turn/estimate-turn.js';
import type { TurnOptions } from '../turn/turn-options.js';
import { cents, money, type Usage } from '../council/usage.js';
import { estimateItems } from './estimate-items.js';
import type { ResolvedItem } from './resolve.js';

/**
 * A batch's spend cap (`--max-cost`, `--max-tokens` on `batch`: docs/ci.md "Spend caps"): the
 * batch's TOTAL, not each item's (docs/reliability.md #242, #243). An item starts only when what
 * was spent, plus what the items in flight are expected to spend, plus its own estimate stays
 * within the cap; otherwise it is `skipped`, with the reason on its result line. Decisions that
 * depend on items still in flight wait for them to end, so an item is skipped only on what was
 * actually spent: the outcome does not depend on which item happened to end first.
 *
 * What an item is expected to spend: its estimate's high end (src/council/estimate.ts) for dollars;
 * tokens are never estimated, so for tokens (and for dollars an estimate cannot give) the most
 * any ended item of the batch spent, and until one has ended, nothing: such an item starts only
 * when no other is in flight. An item that ended with its spend unknown is counted at what it
 * was expected to spend; when that is unknown too, the cap can no longer be kept and the rest are
 * skipped, unless --allow-unmetered says the run may go on without it.
 */
export type Admission =
  /** Start the item; `cap`: its own per-turn cap, what is left of the batch's for it. */
  | { kind: 'start'; cap: TurnCap }
  | { kind: 'skip'; reason: string }
  /** Ask again once an item in flight has ended. */
  | { kind: 'wait' };

type Dimension = 'cost' | 'tokens';

/** One figure per dimension; null when not known. */
type Figures = Record<Dimension, number | null>;

const tokensOf = (u: Usage): number | null =>
  u.input_tokens === null && u.output_tokens === null ? null : (u.input_tokens ?? 0) + (u.output_tokens ?? 0);

const shown = (d: Dimension, n: number): string => (d === 'cost' ? money(n) : `${Math.round(n)} tokens`);

export class SpendBudget {
  private readonly spent: Record<Dimension, number> = { cost: 0, tokens: 0 };
  /** The first ended item whose spend could not be counted, per dimension. */
  private readonly uncounted: Record<Dimension, string | undefined> = { cost: undefined, tokens: undefined };
  private readonly largest: Figures = { cost: null, tokens: null };
  private readonly inFlight = new Map<string, Figures>();
  private waiters: Array<() => void> = [];

  /** `earlier`: what the earlier runs of a resumed batch spent (docs/ci.md "Spend caps"). */
  constructor(
    readonly cap: TurnCap,
    earlier: readonly Usage[] = [],
  ) {
    for (const u of earlier) this.count('an earlier run', u, { cost: null, tokens: null });
  }

  /**
   * Whether the item `id`, expected to cost `estimateUsd` (null: unknown), may start now; when it
   * may, it is in flight from this call on (in the same step, so two workers never both take the
   * room that was left for one).
   */
  admit(id: string, estimateUsd: number | null): Admission {
    const expected: Figures = { cost: estimateUsd ?? this.largest.cost, tokens: this.largest.tokens };
    const own: SpendCap = {};
    for (const d of ['cost', 'tokens'] as const) {
      const limit = d === 'cost' ? this.cap.maxCostUsd : this.cap.maxTokens;
      if (limit === undefined) continue;
      const spent = this.spent[d];
      if (spent >= limit) return this.skip(`the batch's ${capName(d, limit)} is reached: ${shown(d, spent)} spent`);
      const lost = this.uncounted[d];
      if (lost !== undefined && this.cap.allowUnmetered !== true)
        return this.skip(
          `what ${lost} spent is unknown, so the batch's ${capName(d, limit)} cannot be kept (--allow-unmetered runs on)`,
        );
      const reserved = [...this.inFlight.values()].map((f) => f[d]);
      const item = expected[d];
      if (item === null || reserved.includes(null)) {
        // Nothing says what this one (or one in flight) will spend: it runs alone, on what was spent.
        if (this.inFlight.size > 0) return { kind: 'wait' };
      } else {
        const projected = spent + reserved.reduce<number>((a, b) => a + (b ?? 0), 0) + item;
        if (projected > limit) {
          if (this.inFlight.size > 0) return { kind: 'wait' };
          return this.skip(
            `${shown(d, spent)} spent, and this item, expected to ${d === 'cost' ? 'cost' : 'use'} ${shown(d, item)}, would cross the batch's ${capName(d, limit)}`,
          );
        }
      }
      const left = limit - spent - reserved.reduce<number>((a, b) => a + (b ?? 0), 0);
      if (d === 'cost') own.maxCostUsd = cents(left);
      else own.maxTokens = Math.max(1, Math.floor(left));
    }
    this.started(id, estimateUsd);
    return {
      kind: 'start',
      cap: { ...own, ...(this.cap.allowUnmetered === true ? { allowUnmetered: true } : {}) },
    };
  }

  /** The item `id` runs, expected to cost `estimateUsd`: a deliberation left running, admitted or not. */
  started(id: string, estimateUsd: number | null): void {
    this.inFlight.set(id, { cost: estimateUsd ?? this.largest.cost, tokens: this.largest.tokens });
  }

  /** The item `id` ended, having spent `usage` (null: its turn never started); wakes the waiters. */
  ended(id: string, usage: Usage | null): void {
    const expected = this.inFlight.get(id) ?? { cost: null, tokens: null };
    this.inFlight.delete(id);
    if (usage !== null) this.count(`item ${id}`, usage, expected);
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves once an item in flight has ended (at once when none is in flight). */
  async next(): Promise<void> {
    if (this.inFlight.size === 0) return;
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** What was spent, as far as it is known: the summary line's words. */
  spentText(): string {
    const parts: string[] = [];
    if (this.cap.maxCostUsd !== undefined)
      parts.push(`${money(this.spent.cost)} of the ${money(this.cap.maxCostUsd)} cost cap spent`);
    if (this.cap.maxTokens !== undefined) parts.push(`${this.spent.tokens} of ${this.cap.maxTokens} tokens used`);
    return parts.join(', ');
  }

  private count(who: string, usage: Usage, expected: Figures): void {
    const actual: Figures = { cost: usage.cost_usd, tokens: tokensOf(usage) };
    for (const d of ['cost', 'tokens'] as const) {
      const n = actual[d] ?? expected[d];
      if (n === null) {
        this.uncounted[d] ??= who;
        continue;
      }
      this.spent[d] = d === 'cost' ? cents(this.spent[d] + n) : this.spent[d] + n;
      if (actual[d] !== null) this.largest[d] = Math.max(this.largest[d] ?? 0, n);
    }
  }

  private skip(reason: string): Admission {
    return { kind: 'skip', reason: `not started: ${reason}` };
  }
}

const capName = (d: Dimension, limit: number): string =>
  d === 'cost' ? `cost cap of ${money(limit)}` : `token cap of ${limit}`;

/** The batch's cap, when one is set. */
export const batchBudget = (cap: TurnCap | undefined, earlier: readonly Usage[] = []): SpendBudget | undefined =>
  hasCap(cap) ? new SpendBudget(cap, earlier) : undefined;

/**
 * The budget of a batch run under a cap, with each item's expected cost (its estimate's high end,
 * from one read of `/agents` and `/policies`); undefined without a cap. A cap the server cannot
 * meter is refused here, once, before any item is sent (exit 2, as for one turn: meterCap).
 */
export async function openBudget(
  ctx: Context,
  conn: Pick<Connection, 'client' | 'url'>,
  run: { cap: TurnCap | undefined; items: readonly ResolvedItem[]; turn: TurnOptions; spent?: readonly Usage[] },
): Promise<{ budget: SpendBudget; expected: ReadonlyMap<string, number | null> } | undefined> {
  const budget = batchBudget(run.cap, run.spent);
  if (budget === undefined) return undefined;
  // Whether a --no-stream item could be stopped depends on its own path: its turn asks that itself.
  await meterCap(conn.client, budget.cap, { server: conn.url, blocking: false }, ctx.signal);
  const client = conn.client;
  const expected = new Map<string, number | null>();
  if (run.cap?.maxCostUsd !== undefined) {
    const estimate = estimateItems(ctx, run.items, run.turn, await readEstimateSources(client, ctx.signal));
    for (const i of estimate.items) expected.set(i.id, i.estimate.high.cost_usd);
  }
  return { budget, expected };
}

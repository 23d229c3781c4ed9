import type { NsedClient } from '../api/index.js';
import type { Context } from '../context.js';
import { NsedError } from '../errors.js';
import { budgetOf, type TokenUsage } from '../protocol/details.js';
import type { AgentInfo } from '../protocol/wire.js';
import { capCrossed, describeCrossed, hasCap, type MeteredCap, type TurnCap } from '../spend-cap.js';
import { oneLine } from '../terminal/sanitize.js';
import { usageOf, type Prices, type Usage } from '../usage.js';
import { listedAgents, SIDE_READ_MS } from './ballot-sources.js';
import { cancelOnExit } from './cancel-on-exit.js';
import type { LiveTurn } from './live-turn.js';
import type { CapStop } from './turn-end.js';
import type { TurnOptions } from './turn-options.js';

/**
 * How often a running deliberation's `GET /deliberation/{id}/budget` is read while a spend cap is
 * set (docs/protocol.md §3.7): at most one read a second, each bounded by SIDE_READ_MS, and
 * none while the previous one is out. README "Spend caps".
 */
export const BUDGET_POLL_MS = 1000;

/**
 * The turn's cap: the flags (or an MCP tool's argument), else NSED_MAX_COST/NSED_MAX_TOKENS and
 * the config keys (RunSettings), each figure on its own; undefined without any.
 */
export function turnCapOf(ctx: Context, opts: Pick<TurnOptions, 'cap'>): TurnCap | undefined {
  const { settings } = ctx.globals;
  const cap: TurnCap = {
    maxCostUsd: opts.cap?.maxCostUsd ?? settings.maxCostUsd.value,
    maxTokens: opts.cap?.maxTokens ?? settings.maxTokens.value,
    allowUnmetered: opts.cap?.allowUnmetered === true,
  };
  return hasCap(cap) ? cap : undefined;
}

/**
 * Before anything is sent: whether the server can meter the deliberation, asked of `GET /agents`
 * (bounded). Nothing public says how a server announces that it reports usage (docs/protocol.md
 * §14, "Metering"), and `/budget` exists only for a job that runs; per-token prices listed for
 * its agents are the one sign available before sending, and the simulator lists none exactly
 * where it reports no dollars (`--profile strict`, `meter=none`). Without them, a cap is refused
 * (exit 2, nothing sent) unless `--allow-unmetered`; with them, the prices bound the estimate.
 * A blocking answer (`--no-stream`) is refused likewise: it may name its deliberation only when it
 * ends, and a deliberation nsed cannot name, it cannot cancel.
 */
export async function meterCap(
  client: NsedClient,
  cap: TurnCap,
  how: { server: string; blocking: boolean },
  signal: AbortSignal,
): Promise<MeteredCap> {
  const flag = cap.maxCostUsd !== undefined ? '--max-cost' : '--max-tokens';
  if (how.blocking && !cap.allowUnmetered)
    throw new NsedError(
      'usage',
      `${flag} cannot be enforced with --no-stream: the answer may name its deliberation only when it ends, too late to stop it`,
      { hint: 'drop --no-stream, or add --allow-unmetered to run it without the cap', unsent: true },
    );
  const listed = await listedAgents(client, signal);
  const ceiling = ceilingOf(listed);
  if (ceiling === null && !cap.allowUnmetered) {
    throw new NsedError(
      'usage',
      `${flag} cannot be enforced: ${oneLine(how.server, 200)} lists no prices for its agents (GET /agents), so nsed cannot tell what a deliberation costs`,
      {
        hint: '--allow-unmetered runs it anyway, stopped by the cap only where the server reports its usage',
        unsent: true,
      },
    );
  }
  return { maxCostUsd: cap.maxCostUsd, maxTokens: cap.maxTokens, ceiling };
}

function ceilingOf(agents: readonly AgentInfo[] | null): Prices | null {
  let input = -1;
  let output = -1;
  for (const a of agents ?? []) {
    if (typeof a.input_price_per_mtok !== 'number' || typeof a.output_price_per_mtok !== 'number') continue;
    if (!Number.isFinite(a.input_price_per_mtok) || !Number.isFinite(a.output_price_per_mtok)) continue;
    input = Math.max(input, a.input_price_per_mtok);
    output = Math.max(output, a.output_price_per_mtok);
  }
  return input < 0 || output < 0 ? null : { input, output };
}

/**
 * What the deliberation has used so far: the stream's reported usage, else `/budget`'s figures,
 * with dollars `/budget` does not report estimated from its tokens at the ceiling prices.
 */
export function liveUsage(reported: Usage | null, budget: unknown, ceiling: Prices | null): Usage {
  const b = budgetOf(budget);
  const totals: TokenUsage | null =
    reported === null
      ? null
      : {
          input_tokens: reported.input_tokens,
          output_tokens: reported.output_tokens,
          reported_cost_usd: reported.cost_source === 'reported' ? reported.cost_usd : null,
        };
  const usage = usageOf({ totals, budget: b });
  if (usage.cost_usd !== null || ceiling === null || usage.input_tokens === null || usage.output_tokens === null)
    return usage;
  const cost = (usage.input_tokens * ceiling.input + usage.output_tokens * ceiling.output) / 1e6;
  return { ...usage, cost_usd: Math.round(cost * 1e8) / 1e8, cost_source: 'estimated' };
}

/**
 * Watches a running turn's spend until `stop()`: every BUDGET_POLL_MS, once the job is named, its
 * usage (liveUsage) against the cap. Once crossed: the figures go out as a `usage` event, the
 * deliberation is cancelled on the orchestrator (bounded, as a cancel on exit is), and the stop is
 * kept on the turn (`live.capped`) for concludeTurn to end it as `capped` (turn-end.ts). A
 * `/budget` that is missing or reports nothing is said once on stderr; the stream's own usage is
 * still watched.
 */
export function watchSpend(live: LiveTurn, cap: MeteredCap): { stop: () => Promise<void> } {
  const { ctx, client } = live.deps;
  const stopped = new AbortController();
  const signal = AbortSignal.any([stopped.signal, ctx.signal]);
  let budgetSilent = false;
  const tick = async (jobId: string): Promise<boolean> => {
    let budget: unknown = null;
    if (!budgetSilent) {
      try {
        budget = await client.budget(jobId, { signal: AbortSignal.any([signal, AbortSignal.timeout(SIDE_READ_MS)]) });
      } catch {
        budget = null;
      }
      if (signal.aborted) return false;
      const b = budgetOf(budget);
      if (b === null || (b.input_tokens === null && b.output_tokens === null && b.estimated_cost_usd === null)) {
        budgetSilent = true;
        ctx.io.stderr.write(
          `nsed: warning: the orchestrator reports no live usage of deliberation ${jobId} (GET /deliberation/{id}/budget); the spend cap can act only on the usage its stream reports\n`,
        );
      }
    }
    const usage = liveUsage(live.transcript.usage, budget, cap.ceiling);
    const crossed = capCrossed(cap, usage);
    if (crossed === undefined) return false;
    live.emit({ type: 'usage', usage });
    // Not tied to the run's signal: the cancel must go out however the stream is doing.
    const cancel = await cancelOnExit(ctx, client, jobId, { session: live.spec.sessionId });
    live.capped = { crossed, cancel };
    return true;
  };
  const run = (async () => {
    while (!signal.aborted) {
      try {
        await ctx.clock.sleep(BUDGET_POLL_MS, signal);
      } catch {
        return;
      }
      const jobId = live.jobId;
      if (jobId !== undefined && live.capped === undefined && (await tick(jobId))) return;
    }
  })();
  return {
    stop: async () => {
      stopped.abort();
      await run;
    },
  };
}

/** The run's error for a turn the cap stopped (exit 15). */
export function capError(stop: CapStop, jobId: string | undefined, sessionId: string): NsedError {
  const job = jobId === undefined ? 'the deliberation' : `deliberation ${jobId}`;
  const how =
    stop.cancel === 'cancelled'
      ? `${job} was cancelled on the orchestrator`
      : stop.cancel === 'over'
        ? `${job} had ended already`
        : `${job} may still be running (the cancel did not go through)`;
  return new NsedError('cost_cap', `stopped at ${describeCrossed(stop.crossed)}: ${how}`, {
    hint:
      stop.cancel === 'cancelled' || stop.cancel === 'over'
        ? `the turn is recorded with the verdict it reached; 'nsed sessions show ${sessionId}' shows it`
        : `nsed cancel -s ${sessionId} stops it`,
  });
}

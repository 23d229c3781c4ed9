import type { NsedClient } from '../api/index.js';
import type { Context } from '../run/context.js';
import { NsedError } from '../errors.js';
import { budgetOf } from '../protocol/details.js';
import type { AgentInfo } from '../protocol/wire.js';
import { capStop, describeCrossed, hasCap, type MeteredCap, type TurnCap } from '../council/spend-cap.js';
import { oneLine } from '../terminal/sanitize.js';
import { money, type Prices, type Usage } from '../council/usage.js';
import { listedAgents } from './ballot-sources.js';
import { cancelOnExit } from './cancel-on-exit.js';
import type { LiveTurn } from './live-turn.js';
import { judgeMeter } from './spend-meter.js';
import type { CapStop } from './turn-end.js';
import type { TurnOptions } from './turn-options.js';

/**
 * How often a running deliberation's `GET /deliberation/{id}/budget` is read while a spend cap is
 * set (docs/protocol.md §3.7): at most one read a second, each bounded by METER_READ_MS, and
 * none while the previous one is out. docs/ci.md "Spend caps".
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
 * (exit 2, nothing sent) unless `--allow-unmetered`, which runs it with one warning that the cost
 * cap cannot act (docs/reliability.md #234); with them, the prices bound the estimate. A blocking
 * answer (`--no-stream`) is refused likewise: it may name its deliberation only when it ends, and
 * a deliberation nsed cannot name, it cannot cancel. `roundUsd`, what the council's round is
 * expected to cost (src/council/estimate.ts), is the first round's expected cost: a cost cap below it
 * starts nothing (exit 15, docs/reliability.md #233).
 */
export async function meterCap(
  client: NsedClient,
  cap: TurnCap,
  how: { server: string; blocking: boolean; roundUsd?: number | null },
  signal: AbortSignal,
): Promise<MeteredCap> {
  const flag = cap.maxCostUsd !== undefined ? '--max-cost' : '--max-tokens';
  const allowUnmetered = cap.allowUnmetered === true;
  if (how.blocking && !allowUnmetered)
    throw new NsedError(
      'usage',
      `${flag} cannot be enforced with --no-stream: the answer may name its deliberation only when it ends, too late to stop it`,
      { hint: 'drop --no-stream, or add --allow-unmetered to run it without the cap', unsent: true },
    );
  const listed = await listedAgents(client, signal);
  const ceiling = ceilingOf(listed);
  if (ceiling === null && !allowUnmetered) {
    throw new NsedError(
      'usage',
      `${flag} cannot be enforced: ${oneLine(how.server, 200)} lists no prices for its agents (GET /agents), so nsed cannot tell what a deliberation costs`,
      {
        hint: '--allow-unmetered runs it anyway, stopped by the cap only where the server reports its usage',
        unsent: true,
      },
    );
  }
  const roundUsd = how.roundUsd ?? null;
  if (cap.maxCostUsd !== undefined && roundUsd !== null && roundUsd > cap.maxCostUsd)
    throw new NsedError(
      'cost_cap',
      `not started: its first round is expected to cost ${money(roundUsd)} at the prices GET /agents lists, over the cost cap of $${cap.maxCostUsd}`,
      { hint: "raise --max-cost, or choose a cheaper council ('--estimate' shows what a council costs)", unsent: true },
    );
  return { maxCostUsd: cap.maxCostUsd, maxTokens: cap.maxTokens, ceiling, roundUsd, allowUnmetered };
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
 * How long one `/budget` read may take before the cap stops waiting for it and falls back to the
 * estimate (docs/reliability.md #235): shorter than other side reads, as the read decides at a
 * round's boundary whether the next round may run, and a late answer lets that round run on.
 * Timed on the run's clock, so a test's clock can say the time has passed instead of waiting it.
 */
export const METER_READ_MS = 4_000;

/** The scored rounds seen so far, and how many the deliberation may run (0 before any). */
function roundsOf(live: LiveTurn): { rounds: number; total: number } {
  let rounds = 0;
  let total = 0;
  for (const r of live.transcript.rounds)
    if (r.scored && r.round >= rounds) {
      rounds = r.round;
      total = r.total_rounds;
    }
  return { rounds, total };
}

/** What a check of the meter led to: the turn was stopped, it goes on, or the watch was stopped meanwhile. */
type Checked = 'capped' | 'on' | 'aborted';

/**
 * Watches a running turn's spend until `stop()`: when the job is named, at the boundary after each
 * scored round (LiveTurn.onProgress), and every BUDGET_POLL_MS between, what was spent
 * (judgeMeter: the stream's usage, else `/budget`, else the fallbacks) against the cap
 * (capStop). At a boundary the next round's expected cost counts too, so the round that would
 * cross the cap is never started. Once stopped: the figures go out as a `usage` event, the
 * deliberation is cancelled on the orchestrator (bounded, as a cancel on exit is), and the stop
 * is kept on the turn (`live.capped`) for concludeTurn to end it as `capped` (turn-end.ts). A
 * meter that is missing, late or not believable is said once on stderr, with what the cap acts on
 * instead; a cap left with nothing to act on is said once, and `live.capEnforced` turns false.
 */
export function watchSpend(live: LiveTurn, cap: MeteredCap): { stop: (ended: boolean) => Promise<void> } {
  const { ctx, client } = live.deps;
  const stopped = new AbortController();
  const signal = AbortSignal.any([stopped.signal, ctx.signal]);
  live.capEnforced = true;
  const said = new Set<string>();
  const warn = (key: string, line: string): void => {
    if (said.has(key)) return;
    said.add(key);
    ctx.io.stderr.write(`nsed: warning: ${line}\n`);
  };
  if (cap.maxCostUsd !== undefined && cap.ceiling === null && cap.roundUsd === null) {
    // Only --allow-unmetered gets here (meterCap): nothing prices what the council uses.
    live.capEnforced = false;
    warn(
      'cost',
      `--max-cost ${cap.maxCostUsd} cannot be enforced: the server lists no prices for its agents (GET /agents); the deliberation runs without it, as --allow-unmetered asks`,
    );
  }
  // Once `/budget` is missing, late or reports nothing, it is not read again: the fallbacks stand.
  let budgetGone = false;
  let checked = 0;
  let projectedAt = 0;
  const readBudget = async (
    jobId: string,
    within: AbortSignal,
  ): Promise<{ budget: unknown; read: 'answered' | 'late' | 'failed' | 'skipped' }> => {
    if (budgetGone) return { budget: null, read: 'skipped' };
    const late = new AbortController();
    const done = new AbortController();
    ctx.clock.sleep(METER_READ_MS, AbortSignal.any([within, done.signal])).then(
      () => late.abort(),
      () => undefined,
    );
    try {
      const budget = await client.budget(jobId, { signal: AbortSignal.any([within, late.signal]) });
      const b = budgetOf(budget);
      if (b === null || (b.input_tokens === null && b.output_tokens === null && b.estimated_cost_usd === null))
        budgetGone = true;
      return { budget, read: 'answered' };
    } catch {
      // A read the watch's own stop cut short says nothing of the server.
      if (!within.aborted) budgetGone = true;
      return { budget: null, read: late.signal.aborted ? 'late' : 'failed' };
    } finally {
      done.abort();
    }
  };
  /** One look at the meter; `final`: the deliberation has ended, so it only says what the cap could act on. */
  const check = async (jobId: string, within: AbortSignal, final: boolean): Promise<Checked> => {
    // The rounds as they stood before the read: a read taken after them holds at least their spend,
    // while a round scored during the read would be weighed on figures from before it ended.
    const at = roundsOf(live);
    const { budget, read } = await readBudget(jobId, within);
    if (within.aborted) return 'aborted';
    const judged = judgeMeter({
      budget,
      read,
      boundMs: METER_READ_MS,
      reported: live.transcript.usage,
      ceiling: cap.ceiling,
      roundUsd: cap.roundUsd,
      rounds: at.rounds,
    });
    const why = judged.doubt === null ? null : `${oneLine(judged.doubt, 300)} (deliberation ${jobId})`;
    for (const [d, flag, limit] of [
      ['cost', '--max-cost', cap.maxCostUsd],
      ['tokens', '--max-tokens', cap.maxTokens],
    ] as const) {
      if (limit === undefined || judged.spent[d] !== null) continue;
      live.capEnforced = false;
      warn(
        d,
        `${flag} ${limit} cannot be enforced: ${why ?? `nothing the orchestrator reports says what deliberation ${jobId} ${d === 'cost' ? 'costs' : 'uses'}`}; it runs on without the cap`,
      );
      // The line said why: the doubt is not said again.
      said.add('doubt');
    }
    if (why !== null && cap.maxCostUsd !== undefined && judged.costFrom !== 'meter') {
      const instead =
        judged.costFrom === 'estimate'
          ? `the estimate, ${money(cap.roundUsd ?? 0)} a round at the prices GET /agents lists`
          : 'the tokens priced at the highest prices GET /agents lists';
      warn('doubt', `${why}; the cost cap acts on ${instead} instead`);
    }
    if (final) return 'on';
    const boundary = at.rounds > projectedAt ? at : null;
    if (boundary !== null) projectedAt = at.rounds;
    const crossed = capStop(cap, judged.spent, boundary);
    if (crossed === undefined) return 'on';
    live.emit({ type: 'usage', usage: judged.usage });
    // Not tied to the run's signal: the cancel must go out however the stream is doing.
    const cancel = await cancelOnExit(ctx, client, jobId, { session: live.spec.sessionId });
    live.capped = { crossed, cancel };
    return 'capped';
  };
  // A job named or a round scored wakes the watch at once; otherwise it looks every BUDGET_POLL_MS.
  let nudged = false;
  let wake: (() => void) | undefined;
  live.onProgress = () => {
    nudged = true;
    wake?.();
  };
  const run = (async () => {
    while (!signal.aborted) {
      if (!nudged) {
        const nap = new AbortController();
        wake = () => nap.abort();
        try {
          await ctx.clock.sleep(BUDGET_POLL_MS, AbortSignal.any([signal, nap.signal]));
        } catch {
          if (signal.aborted) return;
        }
        wake = undefined;
      }
      nudged = false;
      const jobId = live.jobId;
      if (jobId === undefined || live.capped !== undefined) continue;
      const outcome = await check(jobId, signal, false);
      if (outcome === 'capped') return;
      if (outcome === 'on') checked += 1;
    }
  })();
  return {
    stop: async (ended) => {
      stopped.abort();
      await run;
      live.onProgress = undefined;
      // A deliberation that ended before any look at its meter: whether the cap could have acted is still said.
      if (ended && checked === 0 && live.jobId !== undefined && live.capped === undefined && !ctx.signal.aborted)
        await check(live.jobId, ctx.signal, true);
    },
  };
}

/** A turn's last usage with what its spend cap did (`cap_enforced`, `capped`); as it is without a cap. */
export function withCap(live: Pick<LiveTurn, 'capEnforced' | 'capped'>, usage: Usage): Usage {
  if (live.capEnforced === undefined) return usage;
  return { ...usage, cap_enforced: live.capEnforced, capped: live.capped?.crossed ?? null };
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

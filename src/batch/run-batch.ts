import { readUsage, sumUsage, type Usage, type UsageTotal } from '../council/usage.js';
import { groupCommitting, type Context } from '../run/context.js';
import { DeliberationSlots } from '../run/deliberation-slots.js';
import { shareAgentListing, SIDE_READ_MS } from '../turn/ballot-sources.js';
import type { Connection } from '../run/connection.js';
import { ExitCode } from '../errors.js';
import type { TurnCap } from '../council/spend-cap.js';
import { openBudget, type SpendBudget } from './spend-budget.js';
import type { ReportOptions } from '../turn/reports/report-options.js';
import type { EarlierLine } from './earlier-results.js';
import { batchProgress } from './progress.js';
import { keptLine, wantsReports, writeBatchReports, type KeptLine } from './reports.js';
import type { ResolvedItem } from './resolve.js';
import { SharedBackoff } from './backoff.js';
import type { ResultSink } from './result-sink.js';
import { reattachItem, runItem, type ItemBase, type LeftItem, type ResultLine } from './run-item.js';
import { batchExit, emptyTally, STATUS_ORDER, type Tally } from './status.js';

export interface BatchRun {
  items: readonly ResolvedItem[];
  base: ItemBase;
  /** Deliberations at once (-j). */
  jobs: number;
  sink: ResultSink;
  minPassRate: number | undefined;
  /** --summary FILE, --junit FILE: one entry per item, written once at the end. */
  reports?: ReportOptions | undefined;
  /** The items file as named (`-` for stdin): the JUnit suite's default name. */
  source?: string | undefined;
  /** --resume: the deliberations a killed run left, by item id, followed instead of sent again. */
  left?: ReadonlyMap<string, LeftItem>;
  /** --resume: the request hash of each item, by id (an item run now finds its own). */
  hashes?: ReadonlyMap<string, string>;
  /**
   * --resume: the earlier lines that stand (their items are not run again). They count in the
   * exit code, the summary line and the reports as this run's own lines do: the batch is one.
   */
  earlier?: readonly EarlierLine[];
  /**
   * The batch's spend cap (--max-cost, --max-tokens: the batch's total, src/batch/spend-budget.ts),
   * and, with --resume, what the earlier runs spent.
   */
  cap?: TurnCap | undefined;
  spent?: readonly Usage[];
  /** --shard I/N: the stamp every line carries, for `batch merge` (src/batch/shard.ts). */
  shard?: ResultLine['shard'];
}

/**
 * Runs the items `jobs` at a time on one connection, writing each result line as its item ends
 * (completion order), its progress on stderr (batch/progress.ts), the summary line and the
 * reports at the end.
 * A failure of one item is its line; only a signal stops the batch from starting more items
 * (the ones never started get no line, so a re-run with --resume runs them).
 */
export async function runBatch(given: Context, run: BatchRun): Promise<number> {
  // Many turns at once: the writes that end together share their fsyncs (docs/reliability.md #260).
  const ctx = groupCommitting(given);
  const started = ctx.clock.now().getTime();
  // What the end needs of each written line, no more (docs/reliability.md #271).
  const lines: KeptLine[] = [];
  const forReports = wantsReports(ctx, run.reports);
  const tally: Tally = emptyTally();
  // One back-off for all the items: a Retry-After slows the batch, not one item (docs/reliability.md #150).
  const backoff = new SharedBackoff(ctx.clock);
  const conn = await ctx.connect(undefined, undefined, { startGate: backoff });
  // Every item's end reads the same `/agents` listing: once for the batch (docs/reliability.md #270).
  shareAgentListing(conn.client);
  const claimsAhead = await listsDeliberations(conn, ctx.signal);
  // Each item's turn has its code loaded now (the connection above, the store here: a store that
  // cannot open fails each item as before), so the engine can be tuned for many turns without
  // the code caches of later modules being refused (src/cli/engine-profile.ts).
  await ctx.store().catch(() => undefined);
  ctx.tuneEngine?.('many-turns');
  // -j bounds the deliberations running on the orchestrator; as many items again may be waiting
  // for a place or ending (their ballots read, their answers recorded, their lines written)
  // meanwhile, so the end of one does not keep the next from starting (docs/reliability.md #273).
  const slots = new DeliberationSlots(run.jobs);
  const progress = batchProgress(ctx, run.items.length, {
    backoffMs: () => backoff.leftMs(),
    running: () => slots.held,
  });
  let next = 0;
  let writeError: unknown;
  let capped: Awaited<ReturnType<typeof openBudget>>;
  const worker = async (): Promise<void> => {
    while (!ctx.signal.aborted && writeError === undefined) {
      const item = run.items[next++];
      if (item === undefined) return;
      const left = run.left?.get(item.id);
      // Under a cap, an item starts only within it (a deliberation left running is paid for already).
      const admitted = capped === undefined || left !== undefined ? undefined : await admit(ctx, capped, item.id);
      if (admitted === null) return;
      const expected = capped?.expected.get(item.id) ?? null;
      if (admitted?.kind === 'skip') {
        progress.started(item);
        await write(skippedLine(item, run, admitted.reason), 0);
        continue;
      }
      // The item's time runs from when its deliberation has a place, not while it waits for one.
      let itemStart = ctx.clock.now().getTime();
      const slot = slots.lease(() => (itemStart = ctx.clock.now().getTime()));
      // An item is claimed before its place is free only where --resume can tell its start never
      // left (see listsDeliberations); elsewhere it waits for the place first.
      if (!claimsAhead && !(await slot.acquire(ctx.signal))) {
        capped?.budget.ended(item.id, null);
        return;
      }
      progress.started(item);
      // An admitted item is in flight from its admission; one left running is counted from now.
      if (admitted === undefined) capped?.budget.started(item.id, expected);
      const base = admitted === undefined ? run.base : { ...run.base, turn: { ...run.base.turn, cap: admitted.cap } };
      let line: ResultLine | undefined;
      // The item's turn gives its place back once its deliberation ended (src/turn/run-turn.ts).
      const itemCtx: Context = { ...ctx, deliberationSlot: slot };
      try {
        line =
          left === undefined
            ? await runItem(itemCtx, conn, item, base)
            : await reattachItem(itemCtx, conn, item, run.hashes?.get(item.id) ?? '', base, left);
      } finally {
        slot.release();
        capped?.budget.ended(item.id, line?.usage ?? null);
      }
      // An interrupt ends the running items as cancelled; they are not finished, so no line:
      // --resume reattaches them through their sessions.
      if (ctx.signal.aborted && line.status === 'cancelled') {
        // An item stopped while it waited for its place never started: it is not run, as the ones
        // after it (its claim was taken back with its session, execute-turn.ts).
        if (slot.started) progress.interrupted(item);
        continue;
      }
      if (!(await write(line, ctx.clock.now().getTime() - itemStart))) return;
    }
  };
  /** Writes an item's line and counts it; false when the sink failed (the batch then stops). */
  const write = async (ended: ResultLine, ms: number): Promise<boolean> => {
    const line = run.shard === undefined ? ended : { ...ended, shard: run.shard };
    lines.push(keptLine(line, forReports));
    tally.counts[line.status]++;
    tally.total++;
    try {
      // A result line is a record, as a session file is: redacted key by key and string by
      // string, the answer with the rest (docs/reliability.md #89); walked only when its text
      // shows something that could be redacted (Secrets.redactRecord).
      const text = JSON.stringify(line);
      const redacted = ctx.secrets.redactRecord(line, text);
      await run.sink.write(`${redacted === line ? text : JSON.stringify(redacted)}\n`);
    } catch (err) {
      writeError ??= err;
      return false;
    }
    progress.finished(line, ms);
    return true;
  };
  try {
    capped = await openBudget(ctx, conn, {
      cap: run.cap,
      items: run.items,
      turn: run.base.turn,
      ...(run.spent === undefined ? {} : { spent: run.spent }),
    });
    const workers = Array.from({ length: Math.max(1, Math.min(2 * run.jobs, run.items.length)) }, () => worker());
    await Promise.all(workers);
  } finally {
    progress.stop();
    await conn.close();
    await run.sink.close().catch((err: unknown) => (writeError ??= err));
  }
  if (writeError !== undefined) throw writeError;
  const wallMs = ctx.clock.now().getTime() - started;
  const earlier = run.earlier ?? [];
  summaryLine(ctx, run.base.batchId, tally, run.items.length, wallMs, earlier, lines, capped?.budget);
  const exitCode = ctx.signalExit() ?? batchExit([...earlier, ...lines], run.minPassRate);
  await writeBatchReports(ctx, run.reports, {
    batch: run.base.batchId,
    source: run.source,
    exitCode,
    out: run.base.out,
    saved: run.base.turn.save !== false,
    startedMs: started,
    wallMs,
    items: run.items,
    lines,
    earlier,
    progress,
  });
  return exitCode;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

const countsOf = (tally: Tally): string =>
  STATUS_ORDER.filter((s) => tally.counts[s] > 0)
    .map((s) => `${tally.counts[s]} ${s}`)
    .join(', ');

/** `$0.0123`, `$0.0123 (1 item unknown)`, or `unknown` when no item's cost is known. */
const costText = (spent: UsageTotal): string =>
  spent.cost_usd === null
    ? 'unknown'
    : `$${spent.cost_usd.toFixed(4)}${spent.unknown_cost_turns > 0 ? ` (${spent.unknown_cost_turns} item${spent.unknown_cost_turns === 1 ? '' : 's'} unknown)` : ''}`;

/** `batch B: 3/4 items in 2.1s: 2 ok, 1 failed (1 not run)`, and after --resume what the earlier run had finished. */
function summaryLine(
  ctx: Context,
  batchId: string,
  tally: Tally,
  total: number,
  ms: number,
  earlier: readonly EarlierLine[],
  lines: readonly KeptLine[],
  budget: SpendBudget | undefined,
): void {
  if (ctx.io.quiet) return;
  // What this run's items cost: known dollars summed, the items whose cost is unknown counted apart.
  const ran = lines.flatMap((l) => (l.usage === null ? [] : [l.usage]));
  const spent = sumUsage(ran);
  // Beside items an earlier run finished, this run's cost is said to be this run's, and the
  // whole batch's follows, so neither reads as the other (docs/ci.md "Many deliberations").
  const earlierSpent = earlier.flatMap((l) => (l.usage == null ? [] : [readUsage(l.usage)]));
  const cost =
    spent.turns === 0
      ? ''
      : earlierSpent.length === 0
        ? `; cost ${costText(spent)}`
        : `; cost ${costText(spent)} this run, ${costText(sumUsage([...ran, ...earlierSpent]))} with the earlier items`;
  const counts = countsOf(tally);
  const notRun = total - tally.total;
  let before = '';
  if (earlier.length > 0) {
    const done = emptyTally();
    for (const l of earlier) done.counts[l.status]++;
    before = `; ${earlier.length} finished earlier: ${countsOf(done)}`;
  }
  ctx.io.stderr.write(
    `batch ${batchId}: ${tally.total}/${total} items in ${seconds(ms)}${counts === '' ? '' : `: ${counts}`}${notRun > 0 ? ` (${notRun} not run)` : ''}${before}${cost}${budget === undefined ? '' : `; ${budget.spentText()}`}\n`,
  );
}

/**
 * Whether the orchestrator lists its deliberations (`GET /deliberations`, docs/protocol.md): only
 * then can --resume after a kill tell an item that was claimed but never sent from one whose
 * start arrived, and send it (docs/reliability.md #201). So only then is an item claimed while it
 * waits for its place, ready to start the moment one is free (docs/reliability.md #273).
 */
async function listsDeliberations(conn: Connection, signal: AbortSignal): Promise<boolean> {
  try {
    await conn.client.deliberations({ signal: AbortSignal.any([signal, AbortSignal.timeout(SIDE_READ_MS)]) });
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the cap lets the item start: waits while the answer depends on items in flight; null
 * when a signal stopped the batch meanwhile.
 */
async function admit(
  ctx: Context,
  capped: { budget: SpendBudget; expected: ReadonlyMap<string, number | null> },
  id: string,
): Promise<Exclude<ReturnType<SpendBudget['admit']>, { kind: 'wait' }> | null> {
  for (;;) {
    if (ctx.signal.aborted) return null;
    const a = capped.budget.admit(id, capped.expected.get(id) ?? null);
    if (a.kind !== 'wait') return a;
    await capped.budget.next();
  }
}

/** The line of an item the batch's cap kept from starting: `skipped`, exit 15, and why (docs/ci.md "Spend caps"). */
function skippedLine(item: ResolvedItem, run: BatchRun, reason: string): ResultLine {
  return {
    id: item.id,
    index: item.index,
    batch: run.base.batchId,
    request_hash: run.hashes?.get(item.id) ?? '',
    session: null,
    job_id: null,
    status: 'skipped',
    exit_code: ExitCode.costCap,
    answer: '',
    verdict: null,
    gate: null,
    usage: null,
    error: { code: 'cost_cap', exit_code: ExitCode.costCap, message: reason },
  };
}

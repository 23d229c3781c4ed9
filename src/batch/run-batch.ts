import { sumUsage } from '../usage.js';
import { groupCommitting, type Context } from '../context.js';
import { redactDeep } from '../secrets.js';
import type { ReportOptions } from '../turn/reports/report-options.js';
import type { EarlierLine } from './earlier-results.js';
import { batchProgress } from './progress.js';
import { writeBatchReports } from './reports.js';
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
  const lines: ResultLine[] = [];
  const tally: Tally = emptyTally();
  // One back-off for all the items: a Retry-After slows the batch, not one item (docs/reliability.md #150).
  const backoff = new SharedBackoff(ctx.clock);
  const conn = await ctx.connect(undefined, undefined, { startGate: backoff });
  const progress = batchProgress(ctx, run.items.length, { backoffMs: () => backoff.leftMs() });
  let next = 0;
  let writeError: unknown;
  const worker = async (): Promise<void> => {
    while (!ctx.signal.aborted && writeError === undefined) {
      const item = run.items[next++];
      if (item === undefined) return;
      const itemStart = ctx.clock.now().getTime();
      progress.started(item);
      const left = run.left?.get(item.id);
      const line =
        left === undefined
          ? await runItem(ctx, conn, item, run.base)
          : await reattachItem(ctx, conn, item, run.hashes?.get(item.id) ?? '', run.base, left);
      // An interrupt ends the running items as cancelled; they are not finished, so no line:
      // --resume reattaches them through their sessions.
      if (ctx.signal.aborted && line.status === 'cancelled') {
        progress.interrupted(item);
        continue;
      }
      lines.push(line);
      tally.counts[line.status]++;
      tally.total++;
      try {
        // A result line is a record, as a session file is: redacted key by key and string by
        // string, the answer with the rest (docs/reliability.md #89).
        await run.sink.write(`${JSON.stringify(redactDeep(line, (text) => ctx.secrets.redact(text)))}\n`);
      } catch (err) {
        writeError ??= err;
        return;
      }
      progress.finished(line, ctx.clock.now().getTime() - itemStart);
    }
  };
  try {
    const workers = Array.from({ length: Math.max(1, Math.min(run.jobs, run.items.length)) }, () => worker());
    await Promise.all(workers);
  } finally {
    progress.stop();
    await conn.close();
    await run.sink.close().catch((err: unknown) => (writeError ??= err));
  }
  if (writeError !== undefined) throw writeError;
  const wallMs = ctx.clock.now().getTime() - started;
  const earlier = run.earlier ?? [];
  summaryLine(ctx, run.base.batchId, tally, run.items.length, wallMs, earlier, lines);
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

/** `batch B: 3/4 items in 2.1s: 2 ok, 1 failed (1 not run)`, and after --resume what the earlier run had finished. */
function summaryLine(
  ctx: Context,
  batchId: string,
  tally: Tally,
  total: number,
  ms: number,
  earlier: readonly EarlierLine[],
  lines: readonly ResultLine[],
): void {
  if (ctx.io.quiet) return;
  // What this run's items cost: known dollars summed, the items whose cost is unknown counted apart.
  const spent = sumUsage(lines.flatMap((l) => (l.usage === null ? [] : [l.usage])));
  const cost =
    spent.turns === 0
      ? ''
      : `; cost ${spent.cost_usd === null ? 'unknown' : `$${spent.cost_usd.toFixed(4)}`}${spent.unknown_cost_turns > 0 && spent.cost_usd !== null ? ` (${spent.unknown_cost_turns} item${spent.unknown_cost_turns === 1 ? '' : 's'} unknown)` : ''}`;
  const counts = countsOf(tally);
  const notRun = total - tally.total;
  let before = '';
  if (earlier.length > 0) {
    const done = emptyTally();
    for (const l of earlier) done.counts[l.status]++;
    before = `; ${earlier.length} finished earlier: ${countsOf(done)}`;
  }
  ctx.io.stderr.write(
    `batch ${batchId}: ${tally.total}/${total} items in ${seconds(ms)}${counts === '' ? '' : `: ${counts}`}${notRun > 0 ? ` (${notRun} not run)` : ''}${before}${cost}\n`,
  );
}

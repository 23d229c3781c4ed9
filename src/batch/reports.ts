import path from 'node:path';
import type { Context } from '../run/context.js';
import { toNsedError, type NsedError } from '../errors.js';
import type { BatchEntry, BatchItemLine, BatchReport } from '../output/export/batch-report.js';
import { recordedGate, recordedVerdict } from '../output/export/report-turn.js';
import { oneLine } from '../terminal/sanitize.js';
import { readUsage } from '../council/usage.js';
import type { ReportOptions } from '../turn/reports/report-options.js';
import { writeReportFile, writeStepOutputs } from '../turn/reports/write-reports.js';
import { stepOutputFile } from '../turn/reports/report-options.js';
import { batchOutputs, type StepOutputs } from '../output/github-output.js';
import type { EarlierLine } from './earlier-results.js';
import type { BatchProgress } from './progress.js';
import type { ResolvedItem } from './resolve.js';
import type { ResultLine } from './run-item.js';

/**
 * What a batch keeps of an item's line once it is written (docs/reliability.md #271): what its
 * exit code and summary count, and, when a report is asked for, what the reports show. Never the
 * answer: nothing of an item that only its line needed outlives the line.
 */
export type KeptLine = Pick<ResultLine, 'id' | 'index' | 'status' | 'exit_code' | 'usage'> &
  Partial<Pick<ResultLine, 'session' | 'job_id' | 'verdict' | 'gate' | 'error'>>;

export function keptLine(l: ResultLine, forReports: boolean): KeptLine {
  const counted = { id: l.id, index: l.index, status: l.status, exit_code: l.exit_code, usage: l.usage };
  return forReports
    ? { ...counted, session: l.session, job_id: l.job_id, verdict: l.verdict, gate: l.gate, error: l.error }
    : counted;
}

/** Whether the batch writes any report at its end (writeBatchReports). */
export function wantsReports(ctx: Pick<Context, 'env'>, reports: ReportOptions | undefined): boolean {
  return (
    stepOutputFile(reports, ctx.env) !== undefined ||
    (reports !== undefined &&
      (reports.summary !== undefined || reports.junit !== undefined || reports.checkRun !== undefined))
  );
}

/** What the reports are made of: every item of the run, the lines of those that finished. */
export interface BatchOutcome {
  batch: string;
  /** The items file as named on the command line (`-` for stdin): the JUnit suite's default name. */
  source?: string | undefined;
  /** The batch's exit code, for the step outputs. */
  exitCode: number;
  /** The results file (--out), absolute, for the step outputs. */
  out?: string | undefined;
  saved: boolean;
  startedMs: number;
  wallMs: number;
  items: readonly ResolvedItem[];
  lines: readonly KeptLine[];
  /** --resume: the lines an earlier run wrote for the items not run again. */
  earlier?: readonly EarlierLine[];
  progress: Pick<BatchProgress, 'durations' | 'interruptedIds'>;
  /** `batch merge`: the shards joined, of how many. */
  merged?: { shards: number; count: number };
}

/**
 * One entry per item in file order: its line, or why it has none. After --resume that is every
 * item of the batch: the ones this run ran and the ones an earlier run finished.
 */
export function batchReport(o: BatchOutcome, junitName?: string): BatchReport {
  const byId = new Map(o.lines.map((l) => [l.id, l]));
  const ran: BatchEntry[] = o.items.map((item) => {
    const line = byId.get(item.id);
    return {
      id: item.id,
      index: item.index,
      ended: line !== undefined ? itemLine(line) : o.progress.interruptedIds.has(item.id) ? 'interrupted' : 'not-run',
      ms: o.progress.durations.get(item.id) ?? null,
    };
  });
  const before = (o.earlier ?? []).map((l): BatchEntry => ({
    id: l.id,
    index: l.index,
    ended: earlierLine(l),
    ms: null,
  }));
  const entries = before.length === 0 ? ran : [...before, ...ran].sort((a, b) => a.index - b.index);
  const name = junitName ?? (o.source === undefined ? undefined : o.source === '-' ? 'stdin' : path.basename(o.source));
  return {
    batch: o.batch,
    ...(name === undefined ? {} : { name }),
    saved: o.saved,
    started: new Date(o.startedMs).toISOString(),
    wallMs: o.wallMs,
    ...(o.merged === undefined ? {} : { merged: o.merged }),
    entries,
  };
}

/** The line's own values; the verdict and gate are the objects the item's `-o json` printed. */
const itemLine = (l: KeptLine): BatchItemLine => ({
  session: l.session ?? null,
  job_id: l.job_id ?? null,
  status: l.status,
  exit_code: l.exit_code,
  verdict: (l.verdict ?? null) as BatchItemLine['verdict'],
  gate: (l.gate ?? null) as BatchItemLine['gate'],
  error: l.error ?? null,
  usage: l.usage ?? null,
});

const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * An earlier run's line as a report shows it. The results file is the user's to edit: fields
 * that do not have their documented shape are left out, never trusted.
 */
function earlierLine(l: EarlierLine): BatchItemLine {
  const o = l as unknown as Record<string, unknown>;
  const e = o['error'] as Record<string, unknown> | null | undefined;
  const error =
    typeof e === 'object' && e !== null && typeof e['code'] === 'string' && typeof e['message'] === 'string'
      ? { code: e['code'], exit_code: l.exit_code, message: e['message'] }
      : null;
  return {
    session: strOrNull(o['session']),
    job_id: strOrNull(o['job_id']),
    status: l.status,
    exit_code: l.exit_code,
    verdict: recordedVerdict(o['verdict']),
    gate: recordedGate(o['gate']),
    error,
    usage: typeof o['usage'] === 'object' && o['usage'] !== null ? readUsage(o['usage']) : null,
  };
}

/**
 * `--summary FILE`, `--junit FILE` and the step outputs of a batch, written once at its end (also after a signal,
 * with what finished), each by the rule for files outside the store (turn/write-reports.ts).
 * A report that cannot be written is exit 11 once the results are out; after a signal it is a
 * warning, since the signal's exit code is the one that matters.
 */
export async function writeBatchReports(
  ctx: Context,
  reports: ReportOptions | undefined,
  outcome: BatchOutcome,
): Promise<void> {
  if (!wantsReports(ctx, reports)) return;
  const outputs = stepOutputFile(reports, ctx.env);
  const report = batchReport(outcome, reports?.junitName);
  const problems: NsedError[] = [];
  const write = async (file: string | undefined, render: () => Promise<string>): Promise<void> => {
    if (file === undefined) return;
    try {
      await writeReportFile(file, ctx.secrets.redact(await render()));
    } catch (e) {
      problems.push(toNsedError(e));
    }
  };
  await write(reports?.summary, async () =>
    (await import('../output/export/batch-summary.js')).batchSummaryMarkdown(report),
  );
  await write(reports?.junit, async () => (await import('../output/export/batch-junit.js')).batchJunitXml(report));
  let checkRunOutputs: StepOutputs = [];
  if (reports?.checkRun !== undefined) {
    const { writeCheckRunReport } = await import('../turn/reports/check-run-report.js');
    const { batchSummaryMarkdown } = await import('../output/export/batch-summary.js');
    // A batch has no findings of its own: its conclusion is its exit code's, its text its summary.
    checkRunOutputs = await writeCheckRunReport(ctx, reports.checkRun, ctx.io.stderr, {
      exitCode: outcome.exitCode,
      gate: 'none',
      summary: batchSummaryMarkdown(report),
      findings: [],
    });
  }
  if (outputs !== undefined) {
    const values = [
      ...batchOutputs(report, { exitCode: outcome.exitCode, resultsFile: outcome.out }),
      ...checkRunOutputs,
    ];
    await writeStepOutputs(ctx, outputs, values).catch((e: unknown) => problems.push(toNsedError(e)));
  }
  const first = problems[0];
  if (first === undefined) return;
  if (!ctx.signal.aborted) throw first;
  for (const p of problems) ctx.io.stderr.write(`nsed: warning: ${oneLine(p.message, 300)}\n`);
}

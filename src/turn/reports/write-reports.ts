import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Context } from '../../run/context.js';
import { ExitCode, NsedError, markReported, toNsedError } from '../../errors.js';
import { workflowAnnotations } from '../../output/annotations.js';
import { junitXml } from '../../output/export/junit.js';
import { reportOf, type ReportInput } from '../../output/export/report-turn.js';
import { summaryMarkdown } from '../../output/export/summary.js';
import { writeOutsideFile } from '../../files/outside-file.js';
import { gateOutcome, githubOutputText, turnOutputs, type StepOutputs } from '../../output/github-output.js';
import { Workspace } from '../../files/workspace-file.js';
import { readFindings, type PlacedFinding } from '../../output/findings.js';
import { gateProgressLines } from '../../output/plain-progress.js';
import { safeWriter } from '../../terminal/safe-writer.js';
import { oneLine } from '../../terminal/sanitize.js';
import type { Session } from '../../session/index.js';
import { stepOutputFile, type ReportOptions } from './report-options.js';
import type { TurnSpec } from '../turn-spec.js';

export interface AfterTurn {
  reports?: ReportOptions | undefined;
  /** The session is in the store (false with --no-save). */
  saved: boolean;
  /** `--progress plain` is in effect: the gate results get their lines too. */
  plain: boolean;
}

/**
 * What a run writes once its turn has ended, from the turn as it was recorded (the store, or
 * the memory of --no-save), so these reports equal `sessions export --format summary|junit`:
 * the gate lines of `--progress plain`, `--summary` and `--junit` files, `--annotate` commands.
 * `failure` is how the turn ended when it did not complete; a report that cannot be written
 * then only warns, since the turn's own error is the one that matters.
 */
export async function writeReports(
  ctx: Context,
  spec: Pick<TurnSpec, 'sessionId' | 'assistantTurnId' | 'policy'>,
  how: AfterTurn,
  failure?: unknown,
): Promise<void> {
  const reports = how.reports;
  const files =
    reports !== undefined &&
    (reports.summary !== undefined ||
      reports.junit !== undefined ||
      reports.html !== undefined ||
      reports.sessionIdFile !== undefined ||
      reports.sarif !== undefined ||
      reports.codequality !== undefined ||
      reports.rdjson !== undefined ||
      reports.checkRun !== undefined);
  const outputs = stepOutputFile(reports, ctx.env);
  if (!files && outputs === undefined && reports?.annotate !== true && !how.plain) return;
  const { input, session } = await recordedReport(ctx, spec, { saved: how.saved }, failure);
  const err = safeWriter(ctx.io.stderr);
  if (how.plain && input.gate !== null && !ctx.io.quiet)
    for (const line of gateProgressLines(input.gate)) err.write(`${line}\n`);
  const problems: NsedError[] = [];
  const write = async (file: string | undefined, render: () => string): Promise<void> => {
    if (file === undefined) return;
    try {
      await writeReportFile(file, ctx.secrets.redact(render()));
    } catch (e) {
      problems.push(toNsedError(e));
    }
  };
  // Whatever the outcome: a failed gate or deliberation is recorded, and a script may go on with it.
  await write(reports?.sessionIdFile, () => `${spec.sessionId}\n`);
  await write(reports?.summary, () => summaryMarkdown(input.turn, input.verdict, input.gate));
  await write(reports?.junit, () => junitXml(input.turn, input.verdict, input.gate, reports?.junitName));
  if (reports?.html !== undefined) {
    const { htmlReport } = await import('../../output/export/html.js');
    await write(reports.html, () => htmlReport(session ?? sessionOfReport(input), { saved: how.saved }));
  }
  const placed = reports?.findings === undefined ? [] : await placedFindings(ctx, reports, session, spec, err);
  if (reports?.sarif !== undefined) {
    const { sarifReport } = await import('../../output/export/sarif.js');
    await write(reports.sarif, () => sarifReport(input.turn, input.verdict, input.gate, placed));
  }
  if (reports?.codequality !== undefined) {
    const { codeQualityReport } = await import('../../output/export/codequality.js');
    await write(reports.codequality, () => codeQualityReport(placed));
  }
  if (reports?.rdjson !== undefined) {
    const { rdjsonReport } = await import('../../output/export/rdjson.js');
    await write(reports.rdjson, () => rdjsonReport(placed));
  }
  let checkRunOutputs: StepOutputs = [];
  if (reports?.checkRun !== undefined) {
    const { writeCheckRunReport } = await import('./check-run-report.js');
    checkRunOutputs = await writeCheckRunReport(ctx, reports.checkRun, err, {
      exitCode: stepExitCode(ctx, failure, session, spec.assistantTurnId),
      gate: gateOutcome(input.gate),
      summary: summaryMarkdown(input.turn, input.verdict, input.gate),
      findings: placed,
    });
  }
  if (reports?.annotate === true)
    err.write(workflowAnnotations(input.verdict, summaryPointer(input, reports, ctx.env), placed));
  if (outputs !== undefined) {
    const exitCode = stepExitCode(ctx, failure, session, spec.assistantTurnId);
    const values = [
      ...turnOutputs(input.turn, input.verdict, input.gate, { exitCode, answerFile: ctx.io.stdoutFile }),
      ...checkRunOutputs,
    ];
    try {
      await writeStepOutputs(ctx, outputs, values);
    } catch (e) {
      problems.push(toNsedError(e));
    }
  }
  await err.drain();
  const first = problems[0];
  if (first === undefined) return;
  if (failure === undefined) {
    // The turn's terminal event (NDJSON finish, the -o json object) is out already: this error
    // adds its exit code and stderr line, not a second terminal event.
    markReported(first);
    throw first;
  }
  for (const p of problems) ctx.io.stderr.write(`nsed: warning: ${oneLine(p.message, 300)}\n`);
}

/**
 * The findings of the turn's --schema answer at the --findings pointer that are real places in
 * the checkout (docs/reliability.md #202). The server is untrusted: each finding refused (an
 * absolute path, `..`, a link out, a missing file or line) and each item that is no finding is
 * dropped with one warning line, and counted in a last line; none reaches a report.
 */
async function placedFindings(
  ctx: Context,
  reports: ReportOptions,
  session: Session | undefined,
  spec: Pick<TurnSpec, 'assistantTurnId'>,
  err: { write(text: string): void },
): Promise<PlacedFinding[]> {
  const pointer = reports.findings ?? '';
  const turn = session?.turns.find((t) => t.id === spec.assistantTurnId);
  if (turn === undefined || !('structured' in turn)) return [];
  const read = readFindings(turn.structured, pointer);
  const warn = (text: string): void => err.write(`nsed: warning: finding ${oneLine(text, 300)}\n`);
  for (const p of read.problems) warn(`${p}: dropped`);
  const workspace = new Workspace(reports.workspace ?? process.cwd());
  const placed: PlacedFinding[] = [];
  let dropped = read.problems.length;
  for (const f of read.findings) {
    const at = await workspace.place(f.file, f.line, f.endLine);
    if (at.ok) placed.push({ ...f, path: at.path });
    else {
      dropped++;
      warn(`at ${f.file}:${f.line} dropped: ${at.why}`);
    }
  }
  if (dropped > 0)
    err.write(
      `nsed: warning: ${dropped} finding${dropped === 1 ? '' : 's'} dropped, ${placed.length} kept (docs/ci.md "Findings on the changed lines")\n`,
    );
  return placed;
}

/**
 * The one place a report file is written, by the rule for files outside the store (a regular
 * file replaced atomically, a device or FIFO written directly); a failure is an IO error (exit
 * 11), after the turn itself was recorded.
 */
export async function writeReportFile(file: string, text: string): Promise<void> {
  try {
    await writeOutsideFile(file, text);
  } catch (e) {
    const cause = toNsedError(e);
    throw new NsedError('io', cause.message, { cause, ...(cause.hint === undefined ? {} : { hint: cause.hint }) });
  }
}

/**
 * The exit code the run ends with, as far as the reports can tell: the failure's (a signal's
 * own code when one ended it); an answer recorded with schema errors is 14, unless the
 * corrective turn that follows rewrites the outputs (the last value of a name is the one GitHub
 * keeps); otherwise 0.
 */
function stepExitCode(ctx: Context, failure: unknown, session: Session | undefined, turnId: string): number {
  if (failure !== undefined) return ctx.signalExit() ?? toNsedError(failure).exitCode;
  const errors = session?.turns.find((t) => t.id === turnId)?.schema_errors;
  return Array.isArray(errors) && errors.length > 0 ? ExitCode.schemaMismatch : ExitCode.ok;
}

/**
 * Step outputs appended to `file` (`$GITHUB_OUTPUT`, `--github-output`) in GitHub's multi-line
 * form, by the rule for files outside the store, appending: what earlier steps and commands
 * wrote there stays. Redacted like every file nsed writes (the token is never a value).
 */
export async function writeStepOutputs(ctx: Context, file: string, values: StepOutputs): Promise<void> {
  const text = ctx.secrets.redact(githubOutputText(values, ctx.randomHex));
  try {
    await writeOutsideFile(file, text, { append: true, label: 'the step outputs file' });
  } catch (e) {
    const cause = toNsedError(e);
    throw new NsedError('io', cause.message, { cause, ...(cause.hint === undefined ? {} : { hint: cause.hint }) });
  }
}

/**
 * The assistant turn as recorded, with its session (what `--html` shows); a turn that never got
 * recorded is reported from how it failed, without a session.
 */
async function recordedReport(
  ctx: Context,
  spec: Pick<TurnSpec, 'sessionId' | 'assistantTurnId' | 'policy'>,
  { saved }: { saved: boolean },
  failure: unknown,
): Promise<{ input: ReportInput; session?: Session }> {
  let question = '';
  try {
    const session = await (await ctx.store()).read(spec.sessionId, { rounds: true });
    question = session.turns.findLast((t) => t.role === 'user' && t.kind === 'message')?.content ?? '';
    return { input: reportOf(session, { turnId: spec.assistantTurnId, saved }), session };
  } catch {
    const e = failure === undefined ? undefined : toNsedError(failure);
    const input: ReportInput = {
      turn: {
        session: spec.sessionId,
        title: '',
        saved,
        turn: spec.assistantTurnId,
        question,
        answer: '',
        status: 'failed',
        error: e === undefined ? 'the turn was not recorded' : e.message,
        policy: spec.policy,
        jobId: null,
        ts: ctx.clock.now().toISOString(),
        seconds: null,
        rounds: [],
        injections: [],
        toolCalls: [],
        usage: null,
        sessionUsage: null,
      },
      verdict: null,
      gate: null,
    };
    return { input };
  }
}

/** A turn that was never recorded, as the session the HTML page shows: its question and how it failed. */
function sessionOfReport(input: ReportInput): Session {
  const t = input.turn;
  const ts = t.ts ?? '';
  return {
    version: 1,
    id: t.session,
    title: '',
    created: ts,
    updated: ts,
    active_policy: t.policy ?? '',
    orchestrator: '',
    conversation_id: '',
    turns: [
      ...(t.question === ''
        ? []
        : [
            {
              id: 'question',
              role: 'user' as const,
              kind: 'message' as const,
              content: t.question,
              status: 'complete' as const,
              ts,
            },
          ]),
      {
        id: t.turn ?? 'answer',
        role: 'assistant',
        kind: 'message',
        content: t.answer,
        status: t.status,
        ts,
        ...(t.policy === null ? {} : { policy_id: t.policy }),
        ...(t.error === null ? {} : { error: t.error }),
      },
    ],
  };
}

function summaryPointer(
  input: ReportInput,
  reports: ReportOptions,
  env: Readonly<Record<string, string | undefined>>,
): string {
  if (reports.summary !== undefined) return summaryPlace(reports.summary, reports.workspace ?? process.cwd(), env);
  if (input.turn.saved) return `nsed sessions export ${input.turn.session} --format summary`;
  return 'write one with --summary FILE';
}

/**
 * Where the notice says the summary is, as a reader of the job's log can find it: the runner's
 * `$GITHUB_STEP_SUMMARY` is a temporary file of the runner, shown on the run's page as the step's
 * summary; a file in the workspace by its path from there; any other file by the path given.
 */
function summaryPlace(file: string, workspace: string, env: Readonly<Record<string, string | undefined>>): string {
  const stepSummary = env['GITHUB_STEP_SUMMARY'];
  if (stepSummary !== undefined && stepSummary !== '' && resolve(file) === resolve(stepSummary))
    return "the step's summary on the run's page";
  const inWorkspace = relative(resolve(workspace), resolve(file));
  const outside = inWorkspace === '..' || inWorkspace.startsWith(`..${sep}`) || isAbsolute(inWorkspace);
  return inWorkspace === '' || outside ? file : inWorkspace;
}

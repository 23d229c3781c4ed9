import type { Context } from '../../run/context.js';
import type { SchemaError } from '../../events/events.js';
import { NsedError, markReported } from '../../errors.js';
import { gateFailure, gateProblemLines } from '../../output/gate-lines.js';
import { progressMode } from '../../output/progress-mode.js';
import { turnRenderer } from '../turn-renderer.js';
import { assertStdoutWritten } from '../../output/session-write.js';
import { oneLine } from '../../terminal/sanitize.js';
import { sessionAgents, type Session, type Turn } from '../../session/index.js';
import { readUsage } from '../../council/usage.js';
import { deriveVerdict, judgeGates, readVerdict, type Gates, type GateResult } from '../../council/verdict.js';
import { wantsReports, type ReportOptions } from '../reports/report-options.js';
import { failedWith, withResult, type TurnResult } from '../turn-result.js';

/**
 * Prints a recorded answer as the run that got it printed it, sending nothing: the same events
 * (turn-start, job, reasoning, rounds, text, verdict, finish) in whatever output mode this run asks for, and the
 * same exit code: the gates given now judge the recorded verdict again (12, 13), and an answer
 * that did not match its --schema is exit 14 again (docs/reliability.md #134). Writes nothing to
 * the store.
 */
export async function replayAnswer(
  ctx: Context,
  session: Session,
  turn: Turn,
  how: { url: string; gates?: Gates | undefined; reports?: ReportOptions | undefined },
): Promise<TurnResult> {
  let result: TurnResult;
  try {
    result = await replay(ctx, session, turn, how);
  } catch (err) {
    await replayReports(ctx, session, turn, how.reports, err);
    throw err;
  }
  await replayReports(ctx, session, turn, how.reports);
  return result;
}

/**
 * The replayed turn's CI reports and step outputs, as the run that got the answer wrote them
 * (turn/write-reports.ts), so a retried step still leaves its summary, JUnit file and outputs.
 * The gate lines were printed by the replay itself.
 */
async function replayReports(
  ctx: Context,
  session: Session,
  turn: Turn,
  reports: ReportOptions | undefined,
  failure?: unknown,
): Promise<void> {
  if (!wantsReports(reports, ctx.env)) return;
  const { writeReports } = await import('../reports/write-reports.js');
  const spec = { sessionId: session.id, assistantTurnId: turn.id, policy: turn.policy_id ?? session.active_policy };
  await writeReports(ctx, spec, { reports, saved: true, plain: false }, failure);
}

async function replay(
  ctx: Context,
  session: Session,
  turn: Turn,
  how: { url: string; gates?: Gates | undefined },
): Promise<TurnResult> {
  const progress = progressMode(ctx.globals.settings.progress.value, ctx.env, ctx.io.stderrIsTTY);
  const renderer = await turnRenderer(ctx, {
    showSessionHint: ctx.io.stderrIsTTY && progress === 'live',
    now: () => ctx.clock.now().getTime(),
    progress,
  });
  const agents = sessionAgents(session);
  const verdict = readVerdict(turn.verdict) ?? deriveVerdict({ rounds: turn.rounds ?? [], reasoning: turn.reasoning });
  const gate: GateResult | null =
    how.gates === undefined || Object.keys(how.gates).length === 0
      ? null
      : judgeGates(verdict, how.gates, turn.usage === undefined ? null : readUsage(turn.usage));
  const jobId = turn.job_id ?? null;
  renderer.onEvent({
    type: 'turn-start',
    session: session.id,
    turn: turn.id,
    policy: agents === undefined ? (turn.policy_id ?? session.active_policy) : null,
    agents: agents ?? null,
    path: turn.path ?? 'compat',
    url: how.url,
  });
  if (jobId !== null) renderer.onEvent({ type: 'job', job_id: jobId });
  // The milestones and rounds as recorded, so -o json and NDJSON carry what the first run's did.
  for (const line of (turn.reasoning ?? '').split('\n'))
    if (line !== '') renderer.onEvent({ type: 'reasoning', text: line });
  for (const r of turn.rounds ?? []) renderer.onEvent({ type: 'round', ...r });
  if (turn.content !== '') renderer.onEvent({ type: 'text', text: turn.content });
  const usage = turn.usage === undefined ? null : readUsage(turn.usage);
  if (usage !== null) renderer.onEvent({ type: 'usage', usage });
  renderer.onEvent({ type: 'verdict', verdict });
  const errors = Array.isArray(turn.schema_errors) ? turn.schema_errors : undefined;
  renderer.onEvent({
    type: 'finish',
    finish_reason: turn.finish_reason ?? 'stop',
    content: turn.content,
    session: session.id,
    turn: turn.id,
    job_id: jobId,
    ...(turn.diverged === true ? { diverged: true as const } : {}),
    verdict,
    gate,
    ...(usage === null ? {} : { usage }),
    ...('structured' in turn ? { structured: turn.structured } : {}),
    ...(errors === undefined ? {} : { schema_errors: errors }),
  });
  await renderer.close();
  await assertStdoutWritten(ctx.io);
  const result: TurnResult = {
    session: session.id,
    turn: turn.id,
    job: jobId,
    status: 'complete',
    answer: turn.content,
    ...('structured' in turn ? { structured: turn.structured } : {}),
    verdict,
    gate,
    usage,
    error: null,
    exitCode: 0,
  };
  refuseRecorded(ctx, session.id, { gate, errors }, result);
  return result;
}

/** The recorded answer's gate failure (12, 13) or schema mismatch (14), as the first run ended with it. */
function refuseRecorded(
  ctx: Context,
  sessionId: string,
  recorded: { gate: GateResult | null; errors: SchemaError[] | undefined },
  result: TurnResult,
): void {
  const { gate, errors } = recorded;
  const failure = gate === null ? undefined : gateFailure(gate);
  if (gate !== null && failure !== undefined) {
    for (const line of gateProblemLines(gate)) ctx.io.stderr.write(`${line}\n`);
    throw reported(
      new NsedError(failure.code, failure.message, {
        hint: `the recorded answer is printed; judge it again with 'nsed gate -s ${sessionId}'`,
      }),
      result,
    );
  }
  if (errors !== undefined && errors.length > 0) {
    for (const e of errors)
      ctx.io.stderr.write(`schema error at ${oneLine(e.path, 200)}: ${oneLine(e.message, 300)}\n`);
    throw reported(
      new NsedError(
        'schema_mismatch',
        `the recorded answer does not match --schema (${errors.length} error${errors.length === 1 ? '' : 's'})`,
        { hint: `the answer is recorded in session ${sessionId}; -o json prints it with its schema_errors` },
      ),
      result,
    );
  }
}

/** The finish was the run's terminal event, so no NDJSON error follows it; the result goes with the error. */
function reported(err: NsedError, result: TurnResult): NsedError {
  markReported(err);
  return withResult(err, failedWith(result, err));
}

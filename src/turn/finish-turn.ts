import { NsedError, markReported, toNsedError } from '../errors.js';
import { gateFailure, gateProblemLines } from '../output/gate-lines.js';
import { unrecordedStatus } from '../output/json.js';
import { waitingMessage } from '../output/progress-state.js';
import type { TurnStatus } from '../session/index.js';
import type { CallToAnswer } from '../tools/answer-call.js';
import { deriveVerdict, judgeGates, type CouncilVerdict, type GateResult } from '../council/verdict.js';
import { UNKNOWN_USAGE } from '../council/usage.js';
import type { AnswerCheck } from './schema/answer-schema.js';
import type { CapCrossed } from '../council/spend-cap.js';
import { verdictAtEnd } from './ballot-sources.js';
import { warnDiverged } from './follow/diverged.js';
import { endOfError } from './error-end.js';
import { withCap } from './spend-watch.js';
import type { LiveTurn } from './live-turn.js';
import type { ErrorEnd, TurnEnd } from './turn-end.js';
import { failedWith, withResult, type TurnResult } from './turn-result.js';

type AnsweredEnd = Exclude<TurnEnd, ErrorEnd>;

/**
 * Acts on how the turn ended, in one place: records the assistant turn, emits the one terminal
 * event (finish, or error; a corrective turn's schema-retry) and maps the end to the run's
 * result and exit code. An answered turn that cannot be finished (the store fails) ends as
 * that error instead. A turn that ends on an error throws it, marked reported and carrying the
 * result (turn-result.ts).
 */
export async function finishTurn(live: LiveTurn, end: TurnEnd): Promise<TurnResult> {
  if ('error' in end) return finishError(live, end);
  try {
    return await finishAnswered(live, end);
  } catch (err) {
    if (err instanceof NsedError && passesThrough(err)) throw err;
    await live.driver.close();
    return finishError(live, await endOfError(live, err));
  }
}

/** Errors thrown after the terminal event (waiting calls, a gate): the run's own way of ending. */
export const passesThrough = (e: NsedError): boolean =>
  e.code === 'tool_pending' || e.code === 'gate_failed' || e.code === 'inconclusive';

async function finishAnswered(live: LiveTurn, end: AnsweredEnd): Promise<TurnResult> {
  if (end.kind === 'tool-calls-pending') return finishPending(live, end.waiting);
  const { deps, spec } = live;
  const divergence = end.kind === 'completed' ? undefined : end.divergence;
  if (divergence !== undefined) warnDiverged(deps.ctx, divergence, spec.sessionId);
  // The ballots, the council's agents and the usage, read once the answer is in (docs/ndjson.md §4b).
  const { verdict } = await verdictAtEnd(live, deps.client, live.jobId, deps.ctx.signal, deps.checkedAgents);
  const t = live.transcript;
  warnOneFamily(live, verdict);
  const checked = end.checked;
  const retrying = end.kind === 'schema-retry';
  // Gates judge only a completed turn that is the run's answer.
  const gate = retrying ? null : judged(verdict, live);
  record(live, 'complete', { verdict, gate, ...(checked === undefined ? {} : { checked }) });
  await deps.recorder.flush();
  const structured = structuredOf(checked);
  const result = resultOf(live, { status: 'complete', verdict, gate, ...structured });
  if (end.kind === 'schema-retry') {
    const attempt = deps.answer?.attempt ?? 0;
    live.emit({
      type: 'schema-retry',
      turn: spec.assistantTurnId,
      attempt: attempt + 1,
      retries: deps.answer?.schema.retries ?? 0,
      errors: end.checked.errors,
    });
    return result;
  }
  live.emit({ type: 'verdict', verdict });
  live.emit({
    type: 'finish',
    finish_reason: t.finishReason ?? 'stop',
    content: t.content,
    session: spec.sessionId,
    turn: spec.assistantTurnId,
    job_id: live.jobId ?? null,
    ...(t.diverged ? { diverged: true as const } : {}),
    verdict,
    gate,
    usage: withCap(live, t.usage ?? UNKNOWN_USAGE),
    ...(checked === undefined ? {} : checked.valid ? structured : { ...structured, schema_errors: checked.errors }),
  });
  await deps.renderer.close();
  if (gate !== null) refuseOnGate(live, gate, result);
  return result;
}

/** Not over yet: the council waits for the calls, so there is nothing for a gate to judge. */
async function finishPending(live: LiveTurn, waiting: readonly CallToAnswer[]): Promise<never> {
  const { deps, spec } = live;
  const t = live.transcript;
  const verdict = deriveVerdict(t);
  record(live, 'complete', { verdict, gate: null, keepPending: true });
  await deps.recorder.flush();
  live.emit({ type: 'verdict', verdict });
  live.emit({
    type: 'finish',
    finish_reason: 'tool_calls',
    content: t.content,
    session: spec.sessionId,
    turn: spec.assistantTurnId,
    job_id: live.jobId ?? null,
    verdict,
    gate: null,
  });
  await deps.renderer.close();
  const err = pendingError(spec.sessionId, waiting);
  markReported(err);
  throw withResult(err, failedWith(resultOf(live, { status: 'complete', verdict, gate: null }), err));
}

/** Records how an error ended the turn (nothing, for a request that never left), then emits the error event. */
async function finishError(live: LiveTurn, end: ErrorEnd): Promise<never> {
  const { deps } = live;
  // A failed deliberation names no chosen agent: it has no answer (docs/ndjson.md §4b).
  const verdict = deriveVerdict({ ...live.transcript, failed: end.kind === 'failed' });
  const recorded = recordedStatus(end);
  if (recorded !== null && !(end.kind === 'cancelled' && end.recorded)) {
    const message = end.kind === 'cancelled' ? end.message : end.error.message;
    const startUnseen = (end.kind === 'interrupted' || end.kind === 'timed-out') && end.startUnseen;
    record(live, recorded, {
      verdict,
      gate: null,
      ...(message === undefined ? {} : { error: message }),
      startUnseen,
      ...(end.kind === 'capped' ? { capped: end.stop.crossed } : {}),
    });
  }
  // A turn that could not be saved fails as a store error (exit 8), whatever else went wrong.
  let final = end.error;
  try {
    await deps.recorder.flush();
  } catch (storeErr) {
    final = toNsedError(storeErr);
  }
  live.emit({
    type: 'error',
    code: final.code,
    exit_code: final.exitCode,
    message: final.message,
    verdict,
    gate: null,
    status: recorded,
    // What the server had reported of the turn's cost before it ended; null when nothing was.
    usage:
      recorded === null
        ? null
        : live.capEnforced === undefined
          ? live.transcript.usage
          : withCap(live, live.transcript.usage ?? UNKNOWN_USAGE),
  });
  await deps.renderer.close();
  markReported(final);
  const status = recorded ?? unrecordedStatus(final.code);
  // As -o json names it: the job the events showed.
  const result = { ...resultOf(live, { status, verdict, gate: null }), job: live.transcript.jobId };
  throw withResult(final, failedWith(result, final));
}

function recordedStatus(end: ErrorEnd): 'failed' | 'interrupted' | 'cancelled' | null {
  switch (end.kind) {
    case 'unsent':
      return null;
    case 'cancelled':
    case 'capped':
      return 'cancelled';
    case 'failed':
      return 'failed';
    case 'interrupted':
    case 'timed-out':
      return 'interrupted';
  }
}

/** The parsed answer as the finish event and -o json carry it (null when it does not match). */
const structuredOf = (checked: AnswerCheck | undefined): { structured?: unknown } =>
  checked === undefined ? {} : { structured: checked.valid ? checked.value : null };

function resultOf(
  live: LiveTurn,
  how: { status: TurnStatus; verdict: CouncilVerdict; gate: GateResult | null; structured?: unknown },
): TurnResult {
  return {
    session: live.spec.sessionId,
    turn: live.spec.assistantTurnId,
    job: live.jobId ?? live.transcript.jobId,
    ...how,
    answer: live.transcript.content,
    usage: live.transcript.usage,
    error: null,
    exitCode: 0,
  };
}

/** A council of one model family is one vote many times over: said once on stderr (docs/ndjson.md §4b). */
function warnOneFamily(live: LiveTurn, verdict: CouncilVerdict): void {
  const d = verdict.trust.diversity;
  if (d !== null && d.families.length === 1)
    live.deps.ctx.io.stderr.write(
      `nsed: warning: every agent of the council is of one model family (${d.families[0] ?? ''}): its votes are less independent than their number says\n`,
    );
}

/** The gates' result when the run set any, else null. */
function judged(verdict: CouncilVerdict, live: LiveTurn): GateResult | null {
  const gates = live.spec.gates;
  if (gates === undefined || Object.keys(gates).length === 0) return null;
  return judgeGates(verdict, gates, live.transcript.usage);
}

/**
 * A gate that did not pass: the answer is out and recorded already; stderr names each check that
 * failed or could not be judged, with expected and actual, and the run exits 12 or 13.
 */
function refuseOnGate(live: LiveTurn, gate: GateResult, result: TurnResult): void {
  const failure = gateFailure(gate);
  if (failure === undefined) return;
  for (const line of gateProblemLines(gate)) live.deps.ctx.io.stderr.write(`${line}\n`);
  const err = new NsedError(failure.code, failure.message, {
    hint: `the answer is printed and recorded; judge it again with 'nsed gate -s ${live.spec.sessionId}'`,
  });
  // The terminal event was the finish, with the gate's result in it: no error event follows.
  markReported(err);
  throw withResult(err, failedWith(result, err));
}

/** Exit 10: the job waits, blocked on calls nsed could not settle; the message names them and the way on. */
function pendingError(sessionId: string, waiting: readonly CallToAnswer[]): NsedError {
  const first = waiting[0];
  return new NsedError('tool_pending', waitingMessage(waiting), {
    hint: `nsed continue -s ${sessionId} --tool-result ${first?.id ?? 'CALL_ID'}=FILE (- for stdin)`,
  });
}

interface RecordOptions {
  verdict: CouncilVerdict;
  gate: GateResult | null;
  error?: string;
  /** The job runs on, blocked on a call: its marker stays. */
  keepPending?: boolean;
  checked?: AnswerCheck;
  /** Sent, and no job named: the claim stays for `resume` (docs/reliability.md #97). */
  startUnseen?: boolean;
  /** A spend cap stopped the turn: which, and what had been spent. */
  capped?: CapCrossed;
}

function record(live: LiveTurn, status: TurnStatus, o: RecordOptions): void {
  const { deps, spec } = live;
  const entry = {
    id: spec.assistantTurnId,
    transcript: live.transcript,
    status,
    verdict: o.verdict,
    gate: o.gate,
    policy: spec.agents === undefined ? spec.policy : null,
    ...(spec.agents === undefined ? {} : { agents: spec.agents }),
    path: spec.path,
    ts: deps.ctx.clock.now().toISOString(),
    userTurn: spec.userTurnId,
    keepPending: o.keepPending ?? false,
    ...(o.checked === undefined ? {} : { checked: o.checked }),
    startUnseen: o.startUnseen ?? false,
    ...(o.capped === undefined ? {} : { capped: o.capped }),
  };
  deps.recorder.answer(o.error === undefined ? entry : { ...entry, error: o.error });
}

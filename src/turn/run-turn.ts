import type { NsedEvent, StreamEvent } from '../events.js';
import type { Context } from '../context.js';
import { ExitCode, NsedError, markReported, toNsedError, type ExitCodeValue } from '../errors.js';
import type { PendingJob, TurnStatus } from '../session/index.js';
import type { CallToAnswer } from '../tools/answer-call.js';
import { declareTools } from '../tools/declared.js';
import { checkAnswer, type AnswerCheck } from './answer-schema.js';
import { completionEvents } from './completion-events.js';
import { DOCUMENTED_FINISH } from '../api/index.js';
import { waitingMessage } from '../output/progress-state.js';
import { followStream, settle, type StreamOutcome } from './follow-stream.js';
import { unshownRest } from './settle.js';
import { hasCall, hasResult, injectionEvent, modeNote, withoutIndex } from './stream-replay.js';
import { ToolDriver } from './tool-driver.js';
import { followUpBody, maxFollowUps, noUsableCall, openCalls, tooManyToolRounds } from './tool-round.js';
import { settleDiverged } from './diverged.js';
import { cancelOnExit, cancelsOnExit } from './cancel-on-exit.js';
import { applyEvent, divergedFrom, emptyTranscript, type Transcript } from '../transcript.js';
import type { TurnDeps, TurnSpec } from './turn-spec.js';
import { gateFailure, gateProblemLines } from '../output/gate-lines.js';
import { turnEndSources } from './ballot-sources.js';
import { UNKNOWN_USAGE } from '../usage.js';
import { deriveVerdict, judgeGates, type CouncilVerdict, type GateResult } from '../verdict.js';

export type { TurnDeps, TurnSpec } from './turn-spec.js';

/**
 * The one loop over a turn's events (data flows one way): bytes become events in api/, and here each
 * event goes to the renderer and the recorder; followStream handles drops. Every run ends with
 * exactly one terminal event, finish or error, and a recorded assistant turn.
 */
export async function runTurn(deps: TurnDeps, spec: TurnSpec): Promise<Transcript> {
  const { ctx, renderer, recorder } = deps;
  let transcript = emptyTranscript();
  let jobId: string | undefined;

  const emit = (e: NsedEvent): void => {
    transcript = applyEvent(transcript, e);
    renderer.onEvent(e);
  };
  // Resolves once the pending marker is durable; the job is shown only after that (docs/reliability.md #36).
  const noteJob = async (id: string): Promise<void> => {
    if (jobId !== undefined) return;
    jobId = id;
    const marker: PendingJob = {
      job_id: id,
      turn: spec.userTurnId,
      path: spec.path,
      policy: spec.policy,
      started: ctx.clock.now().toISOString(),
    };
    // Where a second terminal finds a job that lives only in this process (--sim).
    if (deps.liveSim !== undefined) marker.sim = deps.liveSim;
    await recorder.pending(marker);
    emit({ type: 'job', job_id: id });
  };
  const apply = (e: StreamEvent): void => {
    switch (e.type) {
      case 'job':
        // Normally known from the response header already; a server without the header names
        // the job in the first chunk, and then the marker is written in the background.
        void noteJob(e.job_id);
        return;
      case 'injection': {
        // A replay after a reconnect delivers injections again; the transcript keeps each once,
        // and only a new one is recorded and shown (renderers see every injection once).
        const injection = injectionEvent(e);
        const before = transcript;
        transcript = applyEvent(transcript, injection);
        if (transcript === before) return;
        if (jobId !== undefined) recorder.injection(jobId, e, deps.newTurnId(), ctx.clock.now().toISOString());
        renderer.onEvent(injection);
        return;
      }
      case 'end':
        // The orchestrator names passthrough and moderator answers only on the full response.
        if (e.mode !== undefined) emit(modeNote(e.mode));
        transcript = applyEvent(transcript, e);
        return;
      default:
        emit(withoutIndex(e));
    }
  };

  emit({
    type: 'turn-start',
    session: spec.sessionId,
    turn: spec.assistantTurnId,
    policy: spec.agents === undefined ? spec.policy : null,
    agents: spec.agents ?? null,
    path: spec.path,
    url: deps.url,
  });
  const declared = deps.tools ?? declareTools([], [], false);
  const driver = new ToolDriver({
    ctx,
    client: deps.client,
    declared,
    sessionId: spec.sessionId,
    emit,
    jobId: () => jobId,
  });
  const applyStream = (e: StreamEvent): void => {
    if (e.type === 'tool-result' && (driver.owns(e.id) || hasResult(transcript, e.id))) return;
    if (e.type === 'tool-call') {
      const { index: _index, live, ...call } = e;
      if (hasCall(transcript, call.id)) return;
      emit(call);
      // A live call waits while the job runs on; one that closed a compat answer is settled below.
      if (live === true && !hasResult(transcript, call.id)) driver.onLive(call);
      return;
    }
    apply(e);
  };
  let waiting: CallToAnswer[] = [];
  try {
    for (const c of spec.toolRound?.calls ?? []) emit({ type: 'tool-call', ...c });
    for (const r of spec.toolRound?.results ?? []) emit({ type: 'tool-result', ...r });
    let start = spec.start;
    const base = spec.toolRound?.base ?? spec.start;
    let outcome: StreamOutcome = { kind: 'ended' };
    let followUps = 0;
    for (;;) {
      if (start.kind === 'chat' && !spec.stream) {
        const { completion, jobId: header } = await deps.client.chat(start.body, {
          threadKey: start.threadKey,
          signal: ctx.signal,
          // Known from the headers: a body cut off later still leaves the job to /result (docs/reliability.md #98).
          onJob: noteJob,
        });
        for (const e of completionEvents(completion, header)) {
          if (e.type === 'job') await noteJob(e.job_id);
          else if (e.type === 'end' && jobId !== undefined && !DOCUMENTED_FINISH.includes(e.finish_reason ?? '')) {
            outcome = (await settle(deps, jobId)) ?? unsettledAnswer(jobId, e.finish_reason);
          } else applyStream(e);
        }
      } else if (start.kind === 'result') {
        await noteJob(start.jobId);
        apply({ type: 'text', text: start.content, index: 1 });
        apply({ type: 'end', finish_reason: 'stop', index: 1 });
      } else {
        outcome = await followStream(
          deps,
          { ...spec, start },
          applyStream,
          () => jobId,
          noteJob,
          () => {
            transcript = divergedFrom(transcript);
          },
        );
      }
      // A compat answer that ends at a tool call: settle the calls, hand the results back on the
      // same thread, and follow the same job on to its answer. An end the orchestrator settled
      // is the job's end: there is nothing left to follow.
      if (outcome.kind === 'settled' || transcript.finishReason !== 'tool_calls' || base.kind !== 'chat') break;
      // Every follow-up must answer a call this answer asked for, and their number is bounded:
      // a server that keeps ending with tool_calls cannot make nsed send forever (docs/reliability.md #90, #91).
      if (openCalls(transcript.toolCalls, transcript.toolResults).length === 0)
        throw noUsableCall(spec.sessionId, jobId);
      waiting = await driver.settleClosed(transcript.toolCalls, transcript.toolResults);
      if (waiting.length > 0) break;
      if (followUps >= maxFollowUps(declared.maxCalls)) throw tooManyToolRounds(spec.sessionId, followUps);
      followUps += 1;
      start = {
        kind: 'chat',
        body: followUpBody(base.body, transcript.toolCalls, transcript.toolResults),
        threadKey: base.threadKey,
      };
    }
    await driver.close();
    if (waiting.length > 0) {
      // Not over yet: the council waits for the calls, so there is nothing for a gate to judge.
      const verdict = deriveVerdict(transcript);
      record(deps, spec, transcript, 'complete', { verdict, gate: null }, undefined, true);
      await recorder.flush();
      emit({ type: 'verdict', verdict });
      emit({
        type: 'finish',
        finish_reason: 'tool_calls',
        content: transcript.content,
        session: spec.sessionId,
        turn: spec.assistantTurnId,
        job_id: jobId ?? null,
        verdict,
        gate: null,
      });
      await renderer.close();
      const err = pendingError(spec.sessionId, waiting);
      markReported(err);
      throw err;
    }
    if (outcome.kind === 'settled') {
      const s = outcome.settlement;
      if (s.kind === 'failed') {
        throw new NsedError('server', `deliberation ${jobId ?? ''} failed: ${s.reason}`.slice(0, 300), {
          hint: `ask again with 'nsed continue -s ${spec.sessionId}'`,
        });
      }
      if (s.kind === 'completed') {
        const rest = unshownRest(transcript.content, s.answer);
        if (rest === undefined) {
          renderer.onEvent({
            type: 'reconnect',
            attempt: 0,
            reason: "the orchestrator's recorded answer differs from the streamed one; keeping the streamed one",
          });
        } else if (rest !== '') {
          apply({ type: 'text', text: rest, index: 0 });
        }
      }
      apply({ type: 'end', finish_reason: s.kind === 'cancelled' ? 'cancelled' : 'stop', index: 0 });
    }
    const finishReason = transcript.finishReason ?? 'stop';
    const status: TurnStatus = finishReason === 'cancelled' ? 'cancelled' : 'complete';
    if (transcript.diverged && status === 'complete')
      transcript = await settleDiverged(deps, transcript, spec.sessionId);
    const ended = await turnEndSources(deps.client, jobId, transcript.rounds, transcript.usage, ctx.signal);
    const verdict = deriveVerdict({ ...transcript, ...ended });
    warnOneFamily(deps, verdict);
    emit({ type: 'usage', usage: ended.usage });
    const answer = deps.answer;
    const checked =
      status === 'complete' && answer !== undefined ? checkAnswer(answer.schema, transcript.content) : undefined;
    // A corrective turn (--schema) follows an answer that does not match while retries remain.
    const retrying = checked?.valid === false && answer !== undefined && answer.attempt < answer.schema.retries;
    // Gates judge only a completed turn that is the run's answer; a cancelled one keeps its own code (exit 9).
    const gate = status === 'complete' && !retrying ? judged(verdict, spec) : null;
    record(deps, spec, transcript, status, { verdict, gate }, undefined, false, checked);
    await recorder.flush();
    if (status === 'cancelled') {
      throw new NsedError('cancelled', `deliberation${jobId === undefined ? '' : ` ${jobId}`} was cancelled`, {
        hint: 'the turn is recorded as cancelled',
      });
    }
    if (retrying && checked?.valid === false && answer !== undefined) {
      emit({
        type: 'schema-retry',
        turn: spec.assistantTurnId,
        attempt: answer.attempt + 1,
        retries: answer.schema.retries,
        errors: checked.errors,
      });
      return transcript;
    }
    emit({ type: 'verdict', verdict });
    emit({
      type: 'finish',
      finish_reason: finishReason,
      content: transcript.content,
      session: spec.sessionId,
      turn: spec.assistantTurnId,
      job_id: jobId ?? null,
      ...(transcript.diverged ? { diverged: true as const } : {}),
      verdict,
      gate,
      usage: transcript.usage ?? UNKNOWN_USAGE,
      ...(checked === undefined
        ? {}
        : checked.valid
          ? { structured: checked.value }
          : { structured: null, schema_errors: checked.errors }),
    });
    await renderer.close();
    if (gate !== null) refuseOnGate(deps, spec, gate);
    return transcript;
  } catch (err) {
    if (err instanceof NsedError && (err.code === 'tool_pending' || isGateError(err))) throw err;
    await driver.close();
    const raw = toNsedError(err);
    // A request that never reached the orchestrator leaves nothing to record: the command
    // forgets the turn instead (no empty session for --last to pick), and releases its claim.
    const neverSent = raw.unsent && jobId === undefined;
    // Sent, and cut off before any response named a job: the orchestrator may have started one
    // all the same, so the claim stays for `resume` to look it up (docs/reliability.md #97).
    const startUnseen =
      !neverSent &&
      jobId === undefined &&
      raw.status === undefined &&
      raw.drop === undefined &&
      (ctx.signal.aborted || raw.code === 'network' || raw.code === 'timeout' || raw.code === 'interrupted');
    let e = classify(err, ctx, spec.sessionId, jobId, startUnseen);
    // A failed deliberation names no chosen agent: it has no answer (docs/ndjson.md §4b).
    const verdict = deriveVerdict({ ...transcript, failed: raw.code === 'server' && raw.drop === undefined });
    let recorded: 'failed' | 'interrupted' | 'cancelled' | null = neverSent ? null : 'cancelled';
    // --on-exit cancel: the job stops on the orchestrator before the run exits, with the exit code
    // the signal or deadline gave (docs/reliability.md #130).
    let cancelledOnExit = false;
    if (jobId !== undefined && transcript.finishReason !== 'cancelled' && cancelsOnExit(ctx, raw)) {
      const outcome = await cancelOnExit(ctx, deps.client, jobId, { session: spec.sessionId });
      if (outcome === 'cancelled') {
        e = new NsedError(e.code, `${stopped(raw, ctx)}; deliberation ${jobId} was cancelled on the orchestrator`, {
          exitCode: e.exitCode,
          hint: 'the turn is recorded as cancelled (--on-exit cancel)',
        });
        record(deps, spec, transcript, 'cancelled', { verdict, gate: null }, e.message);
        cancelledOnExit = true;
      }
    }
    if (!neverSent && transcript.finishReason !== 'cancelled' && !cancelledOnExit) {
      // A job that failed or was refused is over; one that was cut off (with or without a job id:
      // a roomless answer that dropped is interrupted, not failed), or whose orchestrator
      // answered 5xx or 429, may still be running: only a definite answer ends it (docs/reliability.md #46).
      const transient = isTransientStatus(raw.status);
      const over =
        !ctx.signal.aborted &&
        !startUnseen &&
        raw.drop === undefined &&
        (jobId === undefined || (raw.code === 'server' && !transient));
      recorded = over ? 'failed' : 'interrupted';
      record(deps, spec, transcript, recorded, { verdict, gate: null }, e.message, false, undefined, startUnseen);
    }
    // A turn that could not be saved fails as a store error (exit 8), whatever else went wrong.
    let final = e;
    try {
      await recorder.flush();
    } catch (storeErr) {
      final = toNsedError(storeErr);
    }
    emit({
      type: 'error',
      code: final.code,
      exit_code: final.exitCode,
      message: final.message,
      verdict,
      gate: null,
      status: recorded,
      usage: recorded === null ? null : (transcript.usage ?? UNKNOWN_USAGE),
    });
    await renderer.close();
    markReported(final);
    throw final;
  }
}

/** A council of one model family is one vote many times over: said once on stderr (docs/ndjson.md §4b). */
function warnOneFamily(deps: TurnDeps, verdict: CouncilVerdict): void {
  const d = verdict.trust.diversity;
  if (d !== null && d.families.length === 1)
    deps.ctx.io.stderr.write(
      `nsed: warning: every agent of the council is of one model family (${d.families[0] ?? ''}): its votes are less independent than their number says\n`,
    );
}

/** What ended the run, for the message of a cancel on exit. */
const stopped = (raw: NsedError, ctx: Context): string =>
  ctx.signal.aborted
    ? 'interrupted'
    : raw.code === 'timeout'
      ? 'the turn did not finish within --timeout'
      : raw.message;

/** A blocking answer whose end /result cannot settle: kept as interrupted, for `nsed resume`. */
function unsettledAnswer(jobId: string, finish: string | null): never {
  const why = finish === null ? 'no finish_reason' : `finish_reason '${finish}'`;
  throw new NsedError(
    'network',
    `the answer came with ${why} and the orchestrator could not say how deliberation ${jobId} ended`,
    { drop: 'eof' },
  );
}

const isTransientStatus = (status: number | undefined): boolean =>
  status !== undefined && (status === 429 || status >= 500);

/** The gates' result when the run set any, else null. */
function judged(verdict: CouncilVerdict, spec: TurnSpec): GateResult | null {
  if (spec.gates === undefined || Object.keys(spec.gates).length === 0) return null;
  return judgeGates(verdict, spec.gates);
}

const isGateError = (e: NsedError): boolean => e.code === 'gate_failed' || e.code === 'inconclusive';

/**
 * A gate that did not pass: the answer is out and recorded already; stderr names each check that
 * failed or could not be judged, with expected and actual, and the run exits 12 or 13.
 */
function refuseOnGate(deps: TurnDeps, spec: TurnSpec, gate: GateResult): void {
  const failure = gateFailure(gate);
  if (failure === undefined) return;
  for (const line of gateProblemLines(gate)) deps.ctx.io.stderr.write(`${line}\n`);
  const err = new NsedError(failure.code, failure.message, {
    hint: `the answer is printed and recorded; judge it again with 'nsed gate -s ${spec.sessionId}'`,
  });
  // The terminal event was the finish, with the gate's result in it: no error event follows.
  markReported(err);
  throw err;
}

function record(
  deps: TurnDeps,
  spec: TurnSpec,
  transcript: Transcript,
  status: TurnStatus,
  judgement: { verdict: CouncilVerdict; gate: GateResult | null },
  error?: string,
  keepPending = false,
  checked?: AnswerCheck,
  startUnseen = false,
): void {
  const entry = {
    id: spec.assistantTurnId,
    transcript,
    status,
    verdict: judgement.verdict,
    gate: judgement.gate,
    policy: spec.agents === undefined ? spec.policy : null,
    ...(spec.agents === undefined ? {} : { agents: spec.agents }),
    path: spec.path,
    ts: deps.ctx.clock.now().toISOString(),
    userTurn: spec.userTurnId,
    keepPending,
    ...(checked === undefined ? {} : { checked }),
    startUnseen,
  };
  deps.recorder.answer(error === undefined ? entry : { ...entry, error });
}

/** Exit 10: the job waits, blocked on calls nsed could not settle; the message names them and the way on. */
function pendingError(sessionId: string, waiting: readonly CallToAnswer[]): NsedError {
  const first = waiting[0];
  return new NsedError('tool_pending', waitingMessage(waiting), {
    hint: `nsed continue -s ${sessionId} --tool-result ${first?.id ?? 'CALL_ID'}=FILE (- for stdin)`,
  });
}

function classify(
  err: unknown,
  ctx: Context,
  sessionId: string,
  jobId: string | undefined,
  startUnseen: boolean,
): NsedError {
  // `resume` looks up a job nsed did not see start, as it follows one it did (docs/reliability.md #97).
  const unseen = startUnseen ? ' before the orchestrator named a deliberation' : '';
  const hint = startUnseen
    ? `if the orchestrator started it, 'nsed resume -s ${sessionId}' finds it and records its answer`
    : `nsed resume -s ${sessionId}`;
  if (ctx.signal.aborted) {
    const code = (ctx.signalExit() ?? ExitCode.interrupted) as ExitCodeValue;
    return new NsedError(
      'interrupted',
      jobId === undefined ? `interrupted${unseen}` : `interrupted; deliberation ${jobId} goes on on the orchestrator`,
      {
        exitCode: code,
        hint,
      },
    );
  }
  const e = toNsedError(err);
  const transient =
    e.drop !== undefined ||
    e.code === 'network' ||
    e.code === 'timeout' ||
    e.code === 'store' ||
    (e.code === 'server' && isTransientStatus(e.status));
  if ((jobId !== undefined || startUnseen) && transient) {
    return new NsedError(e.code, e.message, { exitCode: e.exitCode, hint, cause: e });
  }
  return e;
}

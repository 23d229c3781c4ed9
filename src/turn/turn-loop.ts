import { DOCUMENTED_FINISH } from '../api/index.js';
import type { DetailsHistory } from '../protocol/details.js';
import type { StreamEvent } from '../events/events.js';
import { NsedError } from '../errors.js';
import type { CallToAnswer } from '../tools/answer-call.js';
import { divergedFrom } from '../events/transcript.js';
import { checkAnswer } from './schema/answer-schema.js';
import type { TurnStart } from './build-request.js';
import { completionEvents } from './completion-events.js';
import { recordedAnswer } from './follow/diverged.js';
import { endOfError } from './error-end.js';
import { followStream, settle, type StreamOutcome } from './follow/follow-stream.js';
import type { LiveTurn } from './live-turn.js';
import { unshownRest } from './follow/unshown-rest.js';
import { followUpBody, maxFollowUps, noUsableCall, openCalls, tooManyToolRounds } from './tools/tool-round.js';
import { capError } from './spend-watch.js';
import type { CapStop, Divergence, TurnEnd } from './turn-end.js';

/** Where the loop over a turn's events stopped: the stream's own end or /result's word, or calls left waiting. */
export interface LoopEnd {
  outcome: StreamOutcome;
  waiting: CallToAnswer[];
}

/**
 * The loop over a turn's events: reads the job's answer to its end, through each tool round of
 * a compat answer. A compat answer that ends at a tool call has its calls settled, the results
 * handed back on the same thread, and the same job followed on to its answer. It decides
 * nothing about how the turn ended: concludeTurn does, from what it returns.
 */
export async function followEvents(live: LiveTurn): Promise<LoopEnd> {
  const { spec } = live;
  for (const c of spec.toolRound?.calls ?? []) live.emit({ type: 'tool-call', ...c });
  for (const r of spec.toolRound?.results ?? []) live.emit({ type: 'tool-result', ...r });
  let start = spec.start;
  const base = spec.toolRound?.base ?? spec.start;
  for (let followUps = 0; ; followUps++) {
    const outcome = await readAnswer(live, start);
    // An end the orchestrator settled is the job's end: there is nothing left to follow.
    const t = live.transcript;
    if (outcome.kind === 'settled' || t.finishReason !== 'tool_calls' || base.kind !== 'chat')
      return { outcome, waiting: [] };
    // Every follow-up must answer a call this answer asked for, and their number is bounded:
    // a server that keeps ending with tool_calls cannot make nsed send forever (docs/reliability.md #90, #91).
    if (openCalls(t.toolCalls, t.toolResults).length === 0) throw noUsableCall(spec.sessionId, live.jobId);
    const waiting = await live.driver.settleClosed(t.toolCalls, t.toolResults);
    if (waiting.length > 0) return { outcome, waiting };
    if (followUps >= maxFollowUps(live.declared.maxCalls)) throw tooManyToolRounds(spec.sessionId, followUps);
    const after = live.transcript;
    start = {
      kind: 'chat',
      body: followUpBody(base.body, after.toolCalls, after.toolResults),
      threadKey: base.threadKey,
    };
  }
}

/** One request's answer: a blocking chat completion, a result already known, or a stream followed. */
async function readAnswer(live: LiveTurn, start: TurnStart): Promise<StreamOutcome> {
  const { deps, spec } = live;
  if (start.kind === 'chat' && !spec.stream) {
    const { completion, jobId: header } = await deps.client.chat(start.body, {
      threadKey: start.threadKey,
      signal: deps.ctx.signal,
      // Known from the headers: a body cut off later still leaves the job to /result (docs/reliability.md #98).
      onJob: live.noteJob,
    });
    let outcome: StreamOutcome = { kind: 'ended' };
    for (const e of completionEvents(completion, header)) {
      if (e.type === 'job') await live.noteJob(e.job_id);
      else if (e.type === 'end' && live.jobId !== undefined && !DOCUMENTED_FINISH.includes(e.finish_reason ?? '')) {
        outcome = (await settle(deps, live.jobId)) ?? unsettledAnswer(live.jobId, e.finish_reason);
      } else live.applyStream(e);
    }
    return outcome;
  }
  if (start.kind === 'result') {
    await live.noteJob(start.jobId);
    for (const e of historyEvents(start.history)) live.apply(e);
    live.apply({ type: 'text', text: start.content, index: 1 });
    live.apply({ type: 'end', finish_reason: 'stop', index: 1 });
    return { kind: 'ended' };
  }
  return followStream(
    deps,
    { ...spec, start },
    live.applyStream,
    () => live.jobId,
    live.noteJob,
    () => {
      live.transcript = divergedFrom(live.transcript);
    },
  );
}

/** A blocking answer whose end /result cannot settle: kept as interrupted, for `nsed resume`. */
function unsettledAnswer(jobId: string, finish: string | null): never {
  const why = finish === null ? 'no finish_reason' : `finish_reason '${finish}'`;
  throw new NsedError(
    'network',
    `the answer came with ${why} and the orchestrator could not say how deliberation ${jobId} ended`,
    { drop: 'eof' },
  );
}

/**
 * How the turn ended, from where the loop stopped: calls left waiting, the orchestrator's
 * settlement (failed, cancelled, or completed with the rest of the answer, or with another
 * text), a replay that differed, and with --schema whether a corrective turn follows.
 */
export async function concludeTurn(live: LiveTurn, loop: LoopEnd): Promise<TurnEnd> {
  // The cap cancelled the job: however its stream ended, the cap is why (spend-watch.ts).
  if (live.capped !== undefined) return cappedEnd(live, live.capped);
  if (loop.waiting.length > 0) return { kind: 'tool-calls-pending', waiting: loop.waiting };
  let divergence: Divergence | undefined;
  if (loop.outcome.kind === 'settled') {
    const s = loop.outcome.settlement;
    if (s.kind === 'failed') {
      const why = `deliberation ${live.jobId ?? ''} failed: ${s.reason}`.slice(0, 300);
      return endOfError(
        live,
        new NsedError('server', why, { hint: `ask again with 'nsed continue -s ${live.spec.sessionId}'` }),
      );
    }
    if (s.kind === 'completed') divergence = settledAnswer(live, s.answer);
    live.apply({ type: 'end', finish_reason: s.kind === 'cancelled' ? 'cancelled' : 'stop', index: 0 });
  }
  if (live.transcript.finishReason === 'cancelled') {
    const error = new NsedError(
      'cancelled',
      `deliberation${live.jobId === undefined ? '' : ` ${live.jobId}`} was cancelled`,
      {
        hint: 'the turn is recorded as cancelled',
      },
    );
    return { kind: 'cancelled', error, recorded: false };
  }
  if (divergence === undefined && live.transcript.diverged) {
    const recorded = await recordedAnswer(live.deps, live.transcript.jobId);
    live.transcript = divergedFrom(live.transcript, recorded);
    divergence = { cause: 'replay', recorded: recorded !== undefined };
  }
  return checkedEnd(live, divergence);
}

/** The end of a turn a spend cap stopped, with the verdict it had reached. */
export function cappedEnd(live: LiveTurn, stop: CapStop): TurnEnd {
  return { kind: 'capped', stop, error: capError(stop, live.jobId, live.spec.sessionId) };
}

/**
 * /result completed the job after the stream closed early: the part not shown yet is shown; an
 * answer that is not a continuation of what was shown replaces it, and the turn is marked
 * (docs/reliability.md #26, #33): never the partial text passed off as the answer.
 */
function settledAnswer(live: LiveTurn, answer: string): Divergence | undefined {
  const rest = unshownRest(live.transcript.content, answer);
  if (rest === '') return undefined;
  if (rest !== undefined) {
    live.apply({ type: 'text', text: rest, index: 0 });
    return undefined;
  }
  const recorded = answer !== '';
  live.deps.renderer.onEvent({
    type: 'reconnect',
    attempt: 0,
    reason: recorded
      ? "the orchestrator's recorded answer differs from the streamed one; it is the answer kept"
      : 'the orchestrator recorded an empty answer; keeping the streamed one',
  });
  live.transcript = divergedFrom(live.transcript, recorded ? answer : undefined);
  return { cause: 'result', recorded };
}

/** A completed answer, checked against --schema when there is one: a corrective turn follows a mismatch while retries remain. */
function checkedEnd(live: LiveTurn, divergence: Divergence | undefined): TurnEnd {
  const answer = live.deps.answer;
  const checked = answer === undefined ? undefined : checkAnswer(answer.schema, live.transcript.content);
  if (checked?.valid === false && answer !== undefined && answer.attempt < answer.schema.retries)
    return { kind: 'schema-retry', checked, ...(divergence === undefined ? {} : { divergence }) };
  const withCheck = checked === undefined ? {} : { checked };
  return divergence === undefined
    ? { kind: 'completed', ...withCheck }
    : { kind: 'diverged', divergence, ...withCheck };
}

/** The rounds and choice `/details` gave back, as the native stream's events (api/native-processor.ts). */
function historyEvents(history: DetailsHistory | undefined): StreamEvent[] {
  if (history === undefined) return [];
  const out: StreamEvent[] = [];
  for (const r of history.rounds) {
    out.push({ type: 'round', ...r, index: 1 });
    if (r.convergence !== undefined)
      out.push({
        type: 'reasoning',
        text: `Round ${r.round} complete — convergence: ${Math.round(r.convergence * 100)}%`,
        index: 1,
      });
  }
  if (history.chosen !== null) out.push({ type: 'chosen', ...history.chosen, index: 1 });
  return out;
}

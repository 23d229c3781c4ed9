import type { NsedEvent, StreamEvent } from '../events.js';
import { ExitCode, NsedError, markReported, toNsedError, type ExitCodeValue } from '../errors.js';
import type { TurnPath } from '../session/index.js';
import { deriveVerdict } from '../verdict.js';
import { followStream, type StreamOutcome } from './follow-stream.js';
import { unshownRest } from './settle.js';
import { hasCall, hasResult, injectionEvent, modeNote, withoutIndex } from './stream-replay.js';
import { applyEvent, divergedFrom, emptyTranscript } from '../transcript.js';
import type { FollowDeps } from './turn-spec.js';

/** The job a watch follows, and what it knows of it (a bare job id knows no session nor policy). */
export interface WatchSpec {
  jobId: string;
  /** The session the job answers, or '' for a job named by id alone. */
  session: string;
  policy: string;
  /** The agents chosen with --agents for the session's council, else null (then a policy chose it). */
  council: string[] | null;
  path: TurnPath;
  /** The orchestrator's base URL. */
  url: string;
  /** --agent: only these agents' candidates in round events; empty for all. */
  agents: readonly string[];
  /** The job had ended before the watch attached: its recorded answer, shown as it is. */
  answer?: string;
}

/**
 * Follows a running job read-only (`nsed watch`): the attach, replay and dedup of a resume
 * (followStream), into the renderer only. Nothing is recorded and no tool call is answered, so
 * the owner's run stays the one that records the turn (docs/architecture.md). The run still has
 * exactly one terminal event: `finish` when the job completed, else `error` with the job's
 * outcome as its exit code (5 failed, 9 cancelled, 130 detached).
 */
export async function watchJob(deps: FollowDeps, spec: WatchSpec): Promise<number> {
  const { renderer } = deps;
  let transcript = emptyTranscript();
  const emit = (e: NsedEvent): void => {
    transcript = applyEvent(transcript, e);
    const shown = forAgents(e, spec.agents);
    if (shown !== undefined) renderer.onEvent(shown);
  };
  let named = false;
  const noteJob = async (id: string): Promise<void> => {
    if (named) return;
    named = true;
    emit({ type: 'job', job_id: id });
  };
  const apply = (e: StreamEvent): void => {
    switch (e.type) {
      case 'job':
        void noteJob(e.job_id);
        return;
      case 'end':
        if (e.mode !== undefined) emit(modeNote(e.mode));
        transcript = applyEvent(transcript, e);
        return;
      case 'injection': {
        // The transcript keeps each injection once; a replay's copy is not shown again.
        const injection = injectionEvent(e);
        const before = transcript;
        transcript = applyEvent(transcript, injection);
        if (transcript !== before) renderer.onEvent(injection);
        return;
      }
      case 'tool-call': {
        const { index: _index, live: _live, ...call } = e;
        if (!hasCall(transcript, call.id)) emit(call);
        return;
      }
      case 'tool-result':
        if (!hasResult(transcript, e.id)) emit(e);
        return;
      default:
        emit(withoutIndex(e));
    }
  };

  emit({
    type: 'turn-start',
    session: spec.session,
    turn: '',
    policy: spec.council === null ? spec.policy : null,
    agents: spec.council,
    path: spec.path,
    url: spec.url,
  });
  try {
    let outcome: StreamOutcome = { kind: 'ended' };
    if (spec.answer !== undefined) {
      await noteJob(spec.jobId);
      apply({ type: 'text', text: spec.answer, index: 0 });
      apply({ type: 'end', finish_reason: 'stop', index: 0 });
    } else {
      outcome = await followStream(
        deps,
        { path: spec.path, start: { kind: 'attach', jobId: spec.jobId } },
        apply,
        () => spec.jobId,
        noteJob,
        () => {
          transcript = divergedFrom(transcript);
        },
      );
    }
    if (outcome.kind === 'settled') {
      const s = outcome.settlement;
      if (s.kind === 'failed')
        throw new NsedError('server', `deliberation ${spec.jobId} failed: ${s.reason}`.slice(0, 300));
      if (s.kind === 'completed') {
        const rest = unshownRest(transcript.content, s.answer);
        if (rest !== undefined && rest !== '') apply({ type: 'text', text: rest, index: 0 });
      }
      apply({ type: 'end', finish_reason: s.kind === 'cancelled' ? 'cancelled' : 'stop', index: 0 });
    }
    if (transcript.finishReason === 'cancelled')
      throw new NsedError('cancelled', `deliberation ${spec.jobId} was cancelled`);
    const verdict = deriveVerdict(transcript);
    emit({ type: 'verdict', verdict });
    emit({
      type: 'finish',
      finish_reason: transcript.finishReason ?? 'stop',
      content: transcript.content,
      session: spec.session,
      turn: '',
      job_id: spec.jobId,
      ...(transcript.diverged ? { diverged: true as const } : {}),
      verdict,
      gate: null,
    });
    await renderer.close();
    return 0;
  } catch (err) {
    const e = ended(err, deps, spec.jobId);
    emit({
      type: 'error',
      code: e.code,
      exit_code: e.exitCode,
      message: e.message,
      verdict: deriveVerdict(transcript),
      gate: null,
      status: null,
    });
    await renderer.close();
    markReported(e);
    throw e;
  }
}

/** How a watch ended other than by a completed job; Ctrl-C only detaches (the job goes on). */
function ended(err: unknown, deps: FollowDeps, jobId: string): NsedError {
  const { ctx } = deps;
  if (ctx.signal.aborted) {
    return new NsedError('interrupted', `stopped watching; deliberation ${jobId} goes on on the orchestrator`, {
      exitCode: (ctx.signalExit() ?? ExitCode.interrupted) as ExitCodeValue,
    });
  }
  return toNsedError(err);
}

/**
 * --agent: a round event keeps only those agents' candidates (their proposals, scores and
 * claims); a proposal of another agent is not shown at all. Every other event is unchanged, and
 * the verdict is still the whole council's.
 */
export function forAgents(e: NsedEvent, agents: readonly string[]): NsedEvent | undefined {
  if (e.type !== 'round' || agents.length === 0) return e;
  const candidates = e.candidates.filter((c) => agents.includes(c.agent_id));
  if (!e.scored && candidates.length === 0) return undefined;
  return { ...e, candidates };
}

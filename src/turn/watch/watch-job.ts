import type { NsedEvent, StreamEvent } from '../../events/events.js';
import { leaderOf } from '../../output/progress-state.js';
import { ExitCode, NsedError, markReported, toNsedError, type ExitCodeValue } from '../../errors.js';
import type { TurnPath } from '../../session/index.js';
import { deriveVerdict } from '../../council/verdict.js';
import { verdictAtEnd } from '../ballot-sources.js';
import { followStream, type StreamOutcome } from '../follow/follow-stream.js';
import { unshownRest } from '../follow/unshown-rest.js';
import { hasCall, hasResult, injectionEvent, modeNote, withoutIndex } from '../follow/stream-replay.js';
import { applyEvent, divergedFrom, emptyTranscript, type Transcript } from '../../events/transcript.js';
import type { FollowDeps } from '../turn-spec.js';

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
  const w = watched(deps, spec);
  w.emit({
    type: 'turn-start',
    session: spec.session,
    turn: '',
    policy: spec.council === null ? spec.policy : null,
    agents: spec.council,
    path: spec.path,
    url: spec.url,
  });
  try {
    await readJob(deps, spec, w);
    if (w.transcript.finishReason === 'cancelled')
      throw new NsedError('cancelled', `deliberation ${spec.jobId} was cancelled`);
    // The same reads the owner makes once the answer is in (read-only), so both see one verdict and cost.
    const { verdict, usage } = await verdictAtEnd(w, deps.client, spec.jobId, deps.ctx.signal);
    const t = w.transcript;
    w.emit({ type: 'verdict', verdict });
    w.emit({
      type: 'finish',
      finish_reason: t.finishReason ?? 'stop',
      content: t.content,
      session: spec.session,
      turn: '',
      job_id: spec.jobId,
      ...(t.diverged ? { diverged: true as const } : {}),
      verdict,
      gate: null,
      usage,
    });
    await renderer.close();
    return 0;
  } catch (err) {
    const e = ended(err, deps, spec.jobId);
    w.emit({
      type: 'error',
      code: e.code,
      exit_code: e.exitCode,
      message: e.message,
      verdict: deriveVerdict(w.transcript),
      gate: null,
      status: null,
    });
    await renderer.close();
    markReported(e);
    throw e;
  }
}

/** What a watch knows of the job so far, and how each event reaches the renderer (shown once each). */
interface Watched {
  transcript: Transcript;
  emit: (e: NsedEvent) => void;
  apply: (e: StreamEvent) => void;
  noteJob: (id: string) => Promise<void>;
}

function watched(deps: FollowDeps, spec: WatchSpec): Watched {
  const { renderer } = deps;
  let named = false;
  const w: Watched = {
    transcript: emptyTranscript(),
    emit: (e) => {
      w.transcript = applyEvent(w.transcript, e);
      const shown = forAgents(e, spec.agents);
      if (shown !== undefined) renderer.onEvent(shown);
    },
    noteJob: async (id) => {
      if (named) return;
      named = true;
      w.emit({ type: 'job', job_id: id });
    },
    apply: (e) => {
      switch (e.type) {
        case 'job':
          void w.noteJob(e.job_id);
          return;
        case 'end':
          if (e.mode !== undefined) w.emit(modeNote(e.mode));
          w.transcript = applyEvent(w.transcript, e);
          return;
        case 'injection': {
          // The transcript keeps each injection once; a replay's copy is not shown again.
          const injection = injectionEvent(e);
          const before = w.transcript;
          w.transcript = applyEvent(w.transcript, injection);
          if (w.transcript !== before) renderer.onEvent(injection);
          return;
        }
        case 'tool-call': {
          const { index: _index, live: _live, ...call } = e;
          if (!hasCall(w.transcript, call.id)) w.emit(call);
          return;
        }
        case 'tool-result':
          if (!hasResult(w.transcript, e.id)) w.emit(e);
          return;
        default:
          w.emit(withoutIndex(e));
      }
    },
  };
  return w;
}

/**
 * Reads the job to its end: its recorded answer, or its stream followed as a resume follows it;
 * a stream closed early is settled by /result, and the rest of its answer shown.
 */
async function readJob(deps: FollowDeps, spec: WatchSpec, w: Watched): Promise<void> {
  if (spec.answer !== undefined) {
    await w.noteJob(spec.jobId);
    w.apply({ type: 'text', text: spec.answer, index: 0 });
    w.apply({ type: 'end', finish_reason: 'stop', index: 0 });
    return;
  }
  const outcome: StreamOutcome = await followStream(
    deps,
    { path: spec.path, start: { kind: 'attach', jobId: spec.jobId } },
    w.apply,
    () => spec.jobId,
    w.noteJob,
    () => {
      w.transcript = divergedFrom(w.transcript);
    },
  );
  if (outcome.kind !== 'settled') return;
  const s = outcome.settlement;
  if (s.kind === 'failed')
    throw new NsedError('server', `deliberation ${spec.jobId} failed: ${s.reason}`.slice(0, 300));
  if (s.kind === 'completed') {
    const rest = unshownRest(w.transcript.content, s.answer);
    if (rest !== undefined && rest !== '') w.apply({ type: 'text', text: rest, index: 0 });
  }
  w.apply({ type: 'end', finish_reason: s.kind === 'cancelled' ? 'cancelled' : 'stop', index: 0 });
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
  if (!e.scored) return { ...e, candidates };
  // The leader is the whole council's, as the verdict is: a selected agent is not the leader for being shown alone.
  const leader = leaderOf(e.candidates);
  return { ...e, candidates, leader: leader === undefined ? null : { agent_id: leader.agent_id, score: leader.score } };
}

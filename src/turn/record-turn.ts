import {
  type PendingJob,
  type RecordedToolCall,
  type Session,
  type Turn,
  type TurnPath,
  type TurnStatus,
  type SessionStore,
  type UpdateOptions,
  upsertAssistantTurn,
  upsertInjection,
} from '../session/index.js';
import type { AnswerCheck } from './schema/answer-schema.js';
import type { Transcript, TranscriptToolCall, TranscriptToolResult } from '../events/transcript.js';
import type { CouncilVerdict, GateResult } from '../council/verdict.js';
import type { CapCrossed } from '../council/spend-cap.js';

/** A call as the session keeps it: what was asked and, once settled, how. */
function recordedCall(c: TranscriptToolCall, r: TranscriptToolResult | undefined): RecordedToolCall {
  const out: RecordedToolCall = { id: c.id, name: c.name, arguments: c.arguments };
  if (r !== undefined)
    Object.assign(out, { result: r.content, status: r.status, exit_code: r.exit_code, duration_ms: r.duration_ms });
  return out;
}

/**
 * The recorder side of a turn. Every write goes through `store.update`, which re-reads the
 * file under the session lock, so a second process (an `inject` from another terminal) never
 * loses its turn to ours (docs/reliability.md #54). Writes are chained so they land in event order.
 */
export class TurnRecorder {
  private chain: Promise<unknown> = Promise.resolve();
  private failure: unknown;

  constructor(
    private readonly store: SessionStore,
    private readonly sessionId: string,
  ) {}

  /**
   * Written as soon as the job id is known, so `nsed resume` finds the job after a crash; the
   * returned promise settles once it is in place (persist before print, docs/reliability.md #36).
   * Over a file that holds this turn's claim, the new file is fsynced but the directory is not:
   * if a power loss undoes the rename, the file as it was still holds the durable claim, which
   * `reconcileDeadClaim` turns into the same marker through GET /deliberations. Without that
   * claim (resume, inject) the marker is written fully durably, as nothing would stand in for it.
   */
  pending(marker: PendingJob): Promise<void> {
    let committed!: () => void;
    const inPlace = new Promise<void>((resolve) => (committed = resolve));
    const write = this.enqueue(
      (s) => {
        s.pending_job = marker;
        s.server_thread = marker.job_id;
        // The marker now keeps a second turn out; the claim that did so until now is done.
        if (s.claim?.turn === marker.turn) delete s.claim;
      },
      { durableRename: (before) => before.claim?.turn !== marker.turn, committed },
    );
    // The job may be shown once the file holds the marker; the lock's release follows it
    // (writes stay chained, flush waits for it). A write that fails never commits:
    // it settles `write`, and its failure is reported by flush, as before.
    return Promise.race([inPlace, write]);
  }

  injection(jobId: string, inj: { message: string; round: number; sequence: number }, id: string, ts: string): void {
    this.enqueue((s) => {
      upsertInjection(s, {
        id,
        role: 'user',
        kind: 'injection',
        content: inj.message,
        status: 'complete',
        ts,
        job_id: jobId,
        round: inj.round,
        sequence: inj.sequence,
      });
    });
  }

  /**
   * The assistant turn, built from the transcript. A complete, failed or cancelled turn
   * clears the pending marker (the job is over); an interrupted one keeps it for `resume`.
   */
  answer(a: {
    id: string;
    transcript: Transcript;
    status: TurnStatus;
    /** null: the council was chosen with --agents, and `agents` names it. */
    policy: string | null;
    agents?: string[];
    path: TurnPath;
    ts: string;
    /** What the council concluded (src/council/verdict.ts), kept so `sessions show` and `nsed gate` read it later. */
    verdict?: CouncilVerdict;
    /** The gates' result, when the run set any. */
    gate?: GateResult | null;
    error?: string;
    /** The user turn answered: its claim on the session, if still there, ends with the turn. */
    userTurn?: string;
    /** The job runs on (blocked on a tool call): the marker stays for `continue --tool-result`. */
    keepPending?: boolean;
    /** --schema: how the answer fared against it. */
    checked?: AnswerCheck;
    /**
     * The request went out and no job id came back (a signal, a timeout or a reset before the
     * headers): the claim stays, marked abandoned, so `resume` can find the job (docs/reliability.md #97).
     */
    startUnseen?: boolean;
    /** A spend cap stopped the turn (spend-watch.ts): which cap, its limit and what had been spent. */
    capped?: CapCrossed;
  }): void {
    const t = a.transcript;
    const turn: Turn = {
      id: a.id,
      role: 'assistant',
      kind: 'message',
      content: t.content,
      status: a.status,
      ts: a.ts,
      path: a.path,
    };
    if (a.policy !== null) turn.policy_id = a.policy;
    if (a.agents !== undefined) turn.agents = [...a.agents];
    if (t.jobId !== null) turn.job_id = t.jobId;
    if (t.finishReason !== null) turn.finish_reason = t.finishReason;
    if (t.reasoning !== '') turn.reasoning = t.reasoning;
    const scored = t.rounds.filter((r) => r.scored);
    if (scored.length > 0) turn.rounds = scored;
    if (t.toolCalls.length > 0)
      turn.tool_calls = t.toolCalls.map((c) =>
        recordedCall(
          c,
          t.toolResults.find((r) => r.id === c.id),
        ),
      );
    if (a.verdict !== undefined) turn.verdict = a.verdict;
    if (t.usage !== null) turn.usage = t.usage;
    if (a.gate !== undefined && a.gate !== null) turn.gate = a.gate;
    if (a.error !== undefined) turn.error = a.error;
    if (t.diverged) turn.diverged = true;
    if (a.capped !== undefined) turn.capped = { ...a.capped };
    if (a.checked !== undefined) {
      turn.structured = a.checked.valid ? a.checked.value : null;
      if (!a.checked.valid) turn.schema_errors = a.checked.errors;
    }
    this.enqueue((s) => {
      upsertAssistantTurn(s, turn);
      if (a.userTurn !== undefined && s.claim?.turn === a.userTurn) {
        if (a.startUnseen === true && t.jobId === null) s.claim.abandoned = a.ts;
        else delete s.claim;
      }
      if (
        a.status !== 'interrupted' &&
        a.keepPending !== true &&
        s.pending_job !== undefined &&
        (t.jobId === null || s.pending_job.job_id === t.jobId)
      ) {
        delete s.pending_job;
      }
    });
  }

  /** Waits for every queued write; rethrows the first failure, never losing one silently (docs/reliability.md #65). */
  async flush(): Promise<void> {
    await this.chain;
    if (this.failure !== undefined) throw this.failure;
  }

  private enqueue(mutate: (s: Session) => void, opts: UpdateOptions = {}): Promise<void> {
    const write = this.chain.then(async () => {
      try {
        await this.store.update(this.sessionId, mutate, opts);
      } catch (err) {
        this.failure ??= err;
      }
    });
    this.chain = write;
    return write;
  }
}

import { councilStatus } from '../council/council-status.js';
import type { EventOf } from '../events/events.js';
import { ExitCode } from '../errors.js';
import { UNKNOWN_USAGE } from '../council/usage.js';
import { safeWriter } from '../terminal/safe-writer.js';
import type { IO } from '../terminal/io.js';
import { applyEvent, emptyTranscript } from '../events/transcript.js';
import { gateFailure } from './gate-lines.js';
import { schemaMismatchMessage } from './schema-lines.js';
import { toJsonLine } from './ndjson.js';
import type { Renderer, RendererOptions } from './renderer-types.js';

/**
 * `-o json`: one object when the turn ends, in every outcome (docs/usage.md "Output modes"): completed,
 * gate-failed, failed, cancelled, interrupted or timed out, each with `status`, `verdict`, `gate`
 * and `error` ({code, exit_code, message}, or null). Rounds are the scored ones (what `sessions
 * show` and the store keep); content is the finish event's, as in every other mode. A run that
 * fails before its turn starts prints nothing here (the command's error report covers it).
 */
export function createJsonRenderer(io: IO, opts: Pick<RendererOptions, 'newSession'> = {}): Renderer {
  const out = safeWriter(io.stdout);
  let transcript = emptyTranscript();
  let start: EventOf<'turn-start'> | undefined;
  // Corrective turns (--schema) so far: the exit-14 message counts them, as stderr's does.
  let corrections = 0;
  const write = (e: EventOf<'finish' | 'error'>, fields: Record<string, unknown>): void => {
    // A turn that never reached the orchestrator is not recorded (its error has no status): its
    // turn id names nothing, nor does the id of a session created for it.
    const unrecorded = e.type === 'error' && (e.status ?? null) === null;
    out.write(
      toJsonLine({
        session: unrecorded && opts.newSession === true ? null : (start?.session ?? null),
        turn: unrecorded ? null : (start?.turn ?? null),
        job_id: (e.type === 'finish' ? e.job_id : null) ?? transcript.jobId,
        policy: start?.policy ?? null,
        agents: start?.agents ?? null,
        ...fields,
        content: e.type === 'finish' ? e.content : transcript.content,
        reasoning: transcript.reasoning,
        rounds: transcript.rounds.filter((r) => r.scored),
        injections: transcript.injections,
        tool_calls: transcript.toolCalls,
        tool_results: transcript.toolResults,
        finish_reason: e.type === 'finish' ? e.finish_reason : transcript.finishReason,
        verdict: e.verdict,
        gate: e.gate,
        // As the MCP turn result carries it: one derivation of whether the whole council voted.
        council: councilStatus({
          rounds: transcript.rounds,
          verdict: e.verdict,
          failed: fields['status'] === 'failed',
        }),
        usage: e.usage ?? transcript.usage ?? (e.type === 'error' && e.status === null ? null : UNKNOWN_USAGE),
        ...(e.type === 'finish' && e.diverged === true ? { diverged: true } : {}),
        ...(e.type !== 'finish' || e.structured === undefined
          ? {}
          : {
              structured: e.structured,
              ...(e.schema_errors === undefined ? {} : { schema_errors: e.schema_errors }),
            }),
      }),
    );
  };
  return {
    onEvent(e) {
      if (e.type === 'injected' || e.type === 'cancelled') {
        // An acknowledgement, not a turn: the one object is the event itself.
        out.write(toJsonLine(e));
        return;
      }
      // A corrective turn (--schema) is a turn of its own: the object describes the last one.
      if (e.type === 'turn-start') {
        start = e;
        transcript = emptyTranscript();
      }
      if (e.type === 'schema-retry') corrections += 1;
      transcript = applyEvent(transcript, e);
      if (e.type === 'finish') {
        write(e, { status: 'complete', error: finishError(e, corrections) });
      } else if (e.type === 'error' && start !== undefined) {
        const error = { code: e.code, exit_code: e.exit_code, message: e.message };
        write(e, { status: e.status ?? unrecordedStatus(e.code), error });
      }
    },
    close: () => out.drain(),
  };
}

/**
 * Why a turn that answered still exits non-zero, or null: an answer that does not match --schema
 * (exit 14; it is recorded, its status stays `complete`), else a gate that failed or could not
 * be judged.
 */
function finishError(e: EventOf<'finish'>, corrections: number): JsonError | null {
  if (e.schema_errors !== undefined && e.schema_errors.length > 0)
    return {
      code: 'schema_mismatch',
      exit_code: ExitCode.schemaMismatch,
      message: schemaMismatchMessage(e.schema_errors.length, corrections),
    };
  const failure = e.gate === null ? undefined : gateFailure(e.gate);
  if (failure === undefined) return null;
  return {
    code: failure.code,
    exit_code: failure.code === 'gate_failed' ? ExitCode.gateFailed : ExitCode.inconclusive,
    message: failure.message,
  };
}

interface JsonError {
  code: string;
  exit_code: number;
  message: string;
}

/** A turn that ended before anything was recorded (its request never left): how it ended, by its error. */
export function unrecordedStatus(code: string): 'failed' | 'interrupted' | 'cancelled' {
  if (code === 'interrupted' || code === 'timeout') return 'interrupted';
  return code === 'cancelled' ? 'cancelled' : 'failed';
}

/**
 * The one object of a run that failed before its turn started (a session not found, a store
 * that cannot be read): the same keys, nothing recorded. Usage errors print nothing instead.
 */
export function jsonFailureLine(e: { code: string; exit_code: number; message: string }): string {
  return toJsonLine({
    session: null,
    turn: null,
    job_id: null,
    policy: null,
    agents: null,
    status: 'failed',
    error: { code: e.code, exit_code: e.exit_code, message: e.message },
    content: '',
    reasoning: '',
    rounds: [],
    injections: [],
    tool_calls: [],
    tool_results: [],
    finish_reason: null,
    verdict: null,
    gate: null,
  });
}

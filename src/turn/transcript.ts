import { assertNever, type NsedEvent, type StreamEvent } from '../events.js';
import type { NsedFinalized, NsedInjected, NsedRound } from '../protocol/wire.js';

export interface TranscriptToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * What a turn amounts to, folded from its events (one pure reducer, so every output agrees); renderers and the recorder
 * read it. Ownership rule: a Transcript is a value. applyEvent never mutates its input, and
 * returns a new object whenever anything changed; arrays are shared with earlier transcripts,
 * so callers must treat every field as read-only.
 */
export interface Transcript {
  content: string;
  reasoning: string;
  /** Every round event, in order (scored and unscored); the recorder keeps the scored ones. */
  rounds: NsedRound[];
  /** Deduplicated by sequence: a replay after a resume delivers the same injection again. */
  injections: NsedInjected[];
  toolCalls: TranscriptToolCall[];
  finalized?: NsedFinalized;
  jobId: string | null;
  finishReason: string | null;
}

export function emptyTranscript(): Transcript {
  return { content: '', reasoning: '', rounds: [], injections: [], toolCalls: [], finalized: undefined, jobId: null, finishReason: null };
}

/**
 * A shallow copy written out field by field: text events arrive by the hundred thousand, and
 * this is about ten times faster than `{ ...t }` (measured: 200k events in ~10-40 ms against
 * ~150 ms). Appending to `content` relies on V8's rope strings, so a copy costs O(1) and the
 * whole answer is flattened once, when it is first read.
 */
function copy(t: Transcript): Transcript {
  return {
    content: t.content,
    reasoning: t.reasoning,
    rounds: t.rounds,
    injections: t.injections,
    toolCalls: t.toolCalls,
    finalized: t.finalized,
    jobId: t.jobId,
    finishReason: t.finishReason,
  };
}

/** Folds one event into the transcript. Pure: `t` is left as it was. */
export function applyEvent(t: Transcript, e: NsedEvent | StreamEvent): Transcript {
  switch (e.type) {
    case 'text': {
      if (e.text === '') return t;
      const next = copy(t);
      next.content = t.content + e.text;
      return next;
    }
    case 'reasoning': {
      if (e.text === '') return t;
      const next = copy(t);
      next.reasoning = t.reasoning + e.text;
      return next;
    }
    case 'round': {
      const next = copy(t);
      next.rounds = [...t.rounds, { round: e.round, total_rounds: e.total_rounds, progress: e.progress, scored: e.scored, candidates: e.candidates }];
      return next;
    }
    case 'injection': {
      if (t.injections.some((i) => i.sequence === e.sequence)) return t;
      const next = copy(t);
      next.injections = [...t.injections, { message: e.message, round: e.round, sequence: e.sequence }];
      return next;
    }
    case 'tool-call': {
      const next = copy(t);
      next.toolCalls = [...t.toolCalls, { id: e.id, name: e.name, arguments: e.arguments }];
      return next;
    }
    case 'finalized': {
      const next = copy(t);
      next.finalized = { chosen_agent_id: e.chosen_agent_id, round: e.round };
      return next;
    }
    case 'job': {
      const next = copy(t);
      next.jobId = e.job_id;
      return next;
    }
    case 'end':
    case 'finish': {
      const next = copy(t);
      next.finishReason = e.finish_reason;
      if (e.type === 'finish' && e.job_id !== null && t.jobId === null) next.jobId = e.job_id;
      return next;
    }
    case 'turn-start':
    case 'tool-result':
    case 'reconnect':
    case 'error':
      return t;
    default:
      return assertNever(e);
  }
}

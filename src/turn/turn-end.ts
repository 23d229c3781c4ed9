import type { NsedError } from '../errors.js';
import type { CallToAnswer } from '../tools/answer-call.js';
import type { AnswerCheck } from './schema/answer-schema.js';
import type { CapCrossed } from '../council/spend-cap.js';
import type { CancelOutcome } from './cancel-on-exit.js';

/**
 * Why the answer kept is not the text shown: a resume's replay differed from it (`replay`), or
 * the stream closed early and the orchestrator's /result answered another text (`result`)
 * (docs/reliability.md #26, #33). `recorded`: the orchestrator's answer replaced what was shown.
 */
export interface Divergence {
  cause: 'replay' | 'result';
  recorded: boolean;
}

/** How a spend cap stopped a turn: what crossed it, and whether the orchestrator took the cancel. */
export interface CapStop {
  crossed: CapCrossed;
  cancel: CancelOutcome;
}

/**
 * How a turn ended, decided once as a value (turn-loop.ts) and acted on by finishTurn
 * (finish-turn.ts), which records it, emits its one terminal event and maps it to the exit code.
 * As openai-node keeps iterating a stream apart from deciding how it ended.
 */
export type TurnEnd =
  /** The answer is in; `checked` with --schema. */
  | { kind: 'completed'; checked?: AnswerCheck }
  /** The answer is in, but not the text shown: marked and warned about in every mode. */
  | { kind: 'diverged'; divergence: Divergence; checked?: AnswerCheck }
  /** The answer does not match --schema and a corrective turn follows (no finish event). */
  | { kind: 'schema-retry'; checked: Extract<AnswerCheck, { valid: false }>; divergence?: Divergence }
  /** The job waits on tool calls nsed could not settle (exit 10). */
  | { kind: 'tool-calls-pending'; waiting: CallToAnswer[] }
  /**
   * The orchestrator cancelled the job, or --on-exit cancel did. `recorded`: the turn was
   * written as cancelled already (before a store error that ends it all the same).
   */
  | { kind: 'cancelled'; error: NsedError; recorded: boolean; message?: string }
  /** The job failed, or was refused: it is over (docs/reliability.md #46). */
  | { kind: 'failed'; error: NsedError }
  /** Cut off (a signal, a drop, a transient answer): the job may run on, for `nsed resume`. */
  | { kind: 'interrupted'; error: NsedError; startUnseen: boolean }
  /** --timeout (or the idle timeout) ended the run; recorded as interrupted, as above. */
  | { kind: 'timed-out'; error: NsedError; startUnseen: boolean }
  /**
   * A spend cap was crossed while the deliberation ran (spend-watch.ts): it was cancelled on the
   * orchestrator, and the turn is recorded cancelled with the verdict it had reached (exit 15).
   */
  | { kind: 'capped'; error: NsedError; stop: CapStop }
  /** The request never reached the orchestrator: nothing is recorded; the command forgets the turn. */
  | { kind: 'unsent'; error: NsedError };

/** The ends that carry the run's error: an error event ends them. */
export type ErrorEnd = Extract<TurnEnd, { error: NsedError }>;

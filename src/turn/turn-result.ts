import type { Usage } from '../council/usage.js';
import type { NsedError } from '../errors.js';
import type { TurnStatus } from '../session/index.js';
import type { CouncilVerdict, GateResult } from '../council/verdict.js';

/**
 * What a turn came to, as a value up the stack (executeTurn, followTurn, runKeyed, replayAnswer):
 * commands map it to their exit code and `nsed batch` writes its result line from it. The same
 * facts `-o json` prints (docs/usage.md "Output modes"), from the same terminal event.
 */
export interface TurnResult {
  session: string;
  turn: string;
  job: string | null;
  /** How the turn is recorded; for a request that never left, how it ended (nothing is recorded). */
  status: TurnStatus;
  /** The answer kept (the partial one for a turn that did not complete). */
  answer: string;
  /** With --schema: the parsed answer, or null when it does not match; absent without a schema. */
  structured?: unknown;
  verdict: CouncilVerdict;
  gate: GateResult | null;
  /** Tokens and cost: null while the orchestrator reports none (unknown is null, never 0). */
  usage: Usage | null;
  /** The run's error: its gate's failure, its schema mismatch, its waiting calls, or what ended it. */
  error: { code: string; exit_code: number; message: string } | null;
  exitCode: number;
}

/** A turn that ended on an error throws it (the command's exit code); the result goes with it. */
const carried = new WeakMap<object, TurnResult>();

/** `err`, carrying `result` for whoever catches it (a batch item's line). */
export function withResult(err: NsedError, result: TurnResult): NsedError {
  carried.set(err, result);
  return err;
}

/** The result a thrown error carries, when a turn had started. */
export function resultOf(err: unknown): TurnResult | undefined {
  return typeof err === 'object' && err !== null ? carried.get(err) : undefined;
}

/** The result as an error ends it: that error, its exit code. */
export function failedWith(result: TurnResult, err: NsedError): TurnResult {
  return {
    ...result,
    error: { code: err.code, exit_code: err.exitCode, message: err.message },
    exitCode: err.exitCode,
  };
}

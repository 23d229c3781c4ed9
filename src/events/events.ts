import type { JobChosen, NsedRound } from '../protocol/wire.js';
import type { Usage } from '../council/usage.js';
import type { CouncilVerdict, GateResult } from '../council/verdict.js';

/**
 * The event union: the internal model of a turn and, one to one, the NDJSON contract of
 * docs/ndjson.md (each NDJSON line is an event plus `v` and `seq`). Changing it is an API change.
 * `injected` and `cancelled` are not turn events: each is the one terminal event of
 * `inject --no-wait` and `cancel`, which acknowledge instead of following a turn.
 */
export type NsedEvent =
  | {
      type: 'turn-start';
      session: string;
      turn: string;
      /** The model string sent; null when the council was chosen with --agents (no policy chose it). */
      policy: string | null;
      /** The agents chosen with --agents; null when a policy chose the council. */
      agents: string[] | null;
      path: 'compat' | 'native';
      url: string;
    }
  | { type: 'job'; job_id: string }
  | { type: 'reasoning'; text: string }
  // A round is the wire's delta.nsed_round (with the native summary's figures where reported), as it arrived.
  | ({ type: 'round' } & NsedRound & {
        /**
         * `nsed watch --agent`: the candidates are a selection, and this is the scored round's leader
         * among all of them (null when it had none), so the selected agent is never called leader.
         */
        leader?: { agent_id: string; score: number } | null;
      })
  | { type: 'text'; text: string }
  | { type: 'injection'; message: string; round: number; sequence: number }
  | { type: 'finalized'; chosen_agent_id: string; round: number }
  | ({ type: 'chosen' } & JobChosen)
  | { type: 'tool-call'; id: string; name: string; arguments: string }
  | {
      type: 'tool-result';
      id: string;
      name: string;
      content: string;
      /** The tool's exit code when nsed ran it; null otherwise (killed, answered elsewhere, expired). */
      exit_code: number | null;
      status: ToolResultStatus;
      duration_ms: number | null;
    }
  | { type: 'reconnect'; attempt: number; reason: string }
  | { type: 'verdict'; verdict: CouncilVerdict }
  /** What the turn has cost so far: sent when the figures change, and once more before the verdict. */
  | { type: 'usage'; usage: Usage }
  | {
      type: 'finish';
      finish_reason: string;
      content: string;
      session: string;
      turn: string;
      job_id: string | null;
      /** Present when a resume's replay differed from what was shown: `content` is then the recorded answer. */
      diverged?: true;
      verdict: CouncilVerdict | null;
      /** The gates' result, or null when none were set (or the turn stopped at a tool call). */
      gate: GateResult | null;
      /** What the turn cost (docs/ndjson.md "Usage"); every figure null when the server reported none. Absent in an export of a turn recorded before usage was kept. */
      usage?: Usage;
      /** With --schema only: the answer parsed, or null when it does not match the schema. */
      structured?: unknown;
      /** With --schema only, when the answer does not match it: what the validator said. */
      schema_errors?: SchemaError[];
    }
  /** The answer did not match --schema: a corrective turn follows (its own turn-start). */
  | { type: 'schema-retry'; turn: string; attempt: number; retries: number; errors: SchemaError[] }
  | { type: 'injected'; session: string; job_id: string; sequence: number | null; round: number | null }
  | { type: 'cancelled'; session: string; job_id: string }
  | {
      type: 'error';
      code: string;
      exit_code: number;
      message: string;
      /** What the council had reported when the turn ended, or null when no turn ran. */
      verdict: CouncilVerdict | null;
      /** Always null: gates judge only completed turns (kept so every terminal event has both). */
      gate: GateResult | null;
      /** How the turn was recorded (failed, interrupted, cancelled), or null when none was. */
      status: 'failed' | 'interrupted' | 'cancelled' | null;
      /** What the turn had cost when it ended, or null when no turn ran. */
      usage?: Usage | null;
    };

/** One complaint of the JSON Schema validator: where in the answer (a JSON Pointer), and what. */
export interface SchemaError {
  path: string;
  message: string;
}

/**
 * How a call was settled: ran here (`ok`, `error`, `timeout`, `capped`), `refused` (not declared,
 * or over --max-tool-calls: never executed), `answered` (by a person or another process), or
 * `expired` (nobody answered before the agent gave up waiting).
 */
export type ToolResultStatus = 'ok' | 'error' | 'timeout' | 'capped' | 'refused' | 'answered' | 'expired';

export type EventType = NsedEvent['type'];

/** The events that end a run: exactly one of them is the last NDJSON line of every command. */
export const TERMINAL_EVENTS: readonly EventType[] = ['finish', 'error', 'injected', 'cancelled'];
export type EventOf<T extends EventType> = Extract<NsedEvent, { type: T }>;

/**
 * What one HTTP stream yields: the wire-derived events, and `end` once the server says the
 * stream is over: every choice finished with `stop` or `tool_calls`, or `[DONE]` arrived (then
 * `finish_reason` is choice 0's, or null when it sent none). An end whose reason is not `stop`
 * or `tool_calls` says the stream is over, not how the deliberation ended. `index` is the
 * position of the SSE data event in the stream that produced it (1-based), the resume cursor.
 */
export type StreamEvent =
  | (EventOf<
      'job' | 'reasoning' | 'round' | 'text' | 'injection' | 'finalized' | 'chosen' | 'tool-result' | 'usage'
    > & {
      index: number;
    })
  /** `live`: the agent waits while the job runs on (answer through the tool-call endpoint). */
  | (EventOf<'tool-call'> & { index: number; live?: boolean })
  | { type: 'end'; finish_reason: string | null; index: number; mode?: string };

/** Exhaustiveness check for switches over the union. */
export function assertNever(value: never): never {
  throw new Error(`unhandled event: ${JSON.stringify(value)}`);
}

export const NDJSON_SCHEMA_VERSION = 1;

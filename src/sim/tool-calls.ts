import type { ToolCall } from '../protocol/wire.js';

export type ToolCallStatus = 'Pending' | 'Responded' | 'Expired';

/** A `PendingToolCall` record as `GET /deliberation/{id}/tool-calls` serves it (docs/protocol.md). */
export interface SimToolCall {
  call_id: string;
  job_id: string;
  agent_id: string;
  /** The name the agent saw: `user_` + the tool's declared name. */
  tool_name: string;
  arguments: Record<string, unknown>;
  round: number;
  phase: string;
  status: ToolCallStatus;
  created_at: number;
  responded_at?: number;
  result?: string;
}

/** What a blocked agent learns when its wait ends: the answer, or nothing (it expired). */
export type CallOutcome = { kind: 'responded'; result: string } | { kind: 'expired' };

export type AnswerOutcome = 'responded' | 'unknown' | 'not-pending';

/**
 * The tool calls of one job and the agent blocked on the open one. An agent asks one question at
 * a time here, so "at most three pending per agent" never binds; the records stay for listing.
 */
export class ToolCallBook {
  readonly calls: SimToolCall[] = [];
  private waiting: { callId: string; wake: (o: CallOutcome) => void } | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** Opens a call and blocks its agent until `answer` or `expire` wakes it. */
  open(record: Omit<SimToolCall, 'status' | 'created_at'>, wake: (o: CallOutcome) => void): SimToolCall {
    const call: SimToolCall = { ...record, status: 'Pending', created_at: this.now() };
    this.calls.push(call);
    this.waiting = { callId: call.call_id, wake };
    return call;
  }

  get(callId: string): SimToolCall | undefined {
    return this.calls.find((c) => c.call_id === callId);
  }

  pending(): SimToolCall[] {
    return this.calls.filter((c) => c.status === 'Pending');
  }

  answer(callId: string, result: string): AnswerOutcome {
    const call = this.get(callId);
    if (call === undefined) return 'unknown';
    if (call.status !== 'Pending') return 'not-pending';
    call.status = 'Responded';
    call.responded_at = this.now();
    call.result = result;
    this.wake(callId, { kind: 'responded', result });
    return 'responded';
  }

  expire(callId: string): void {
    const call = this.get(callId);
    if (call?.status !== 'Pending') return;
    call.status = 'Expired';
    this.wake(callId, { kind: 'expired' });
  }

  private wake(callId: string, outcome: CallOutcome): void {
    const w = this.waiting;
    if (w?.callId !== callId) return;
    this.waiting = undefined;
    w.wake(outcome);
  }
}

/** A wire tool call as the compat stream shows it, from the record (arguments as a JSON string). */
export function wireCallOf(call: SimToolCall, shownName: string): ToolCall {
  return {
    id: call.call_id,
    type: 'function',
    function: { name: shownName, arguments: JSON.stringify(call.arguments) },
  };
}

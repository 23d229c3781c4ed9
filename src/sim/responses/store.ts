import type { ChatMessage } from '../../protocol/wire.js';
import type { InputItem } from './input.js';

/** Where a job stands after an answer that ended on a tool call: the job, and the log index past that answer. */
export interface WaitingJob {
  jobId: string;
  from: number;
}

/** A response the server holds: its thread so far, and the model it is locked to. */
export interface HeldResponse {
  id: string;
  model: string;
  /** Every message of the thread up to and including this response's output. */
  thread: ChatMessage[];
  /** The thread's identity from its first response on (the `schema=violate-once` fault). */
  threadKey: string;
  /** The thread's `reasoning.effort`, which a follow-up may not change. */
  effort: string | null;
  /**
   * Set when the response ended on tool calls its job still waits for: the follow-up that
   * carries their outputs feeds that job and goes on from there instead of starting another.
   */
  waiting?: WaitingJob;
}

/**
 * Server-held threads of the Responses API: `previous_response_id` continues one, and the
 * output items of every response can be named again by `item_reference`. Kept for the same
 * history TTL as jobs. The calls a held response ended on are indexed by call id, because a
 * client may answer them without `previous_response_id` (the AI SDK re-sends the whole thread
 * instead).
 */
export class ResponseStore {
  private readonly responses = new Map<string, HeldResponse>();
  private readonly items = new Map<string, InputItem>();
  private readonly calls = new Map<string, WaitingJob>();

  get(id: string): HeldResponse | undefined {
    return this.responses.get(id);
  }

  item(id: string): InputItem | undefined {
    return this.items.get(id);
  }

  /** The job waiting for the result of call `callId`, as the response that made the call left it. */
  waitingOn(callId: string): WaitingJob | undefined {
    return this.calls.get(callId);
  }

  /**
   * Keeps the response for `previous_response_id` and its items for `item_reference`, unless the
   * request said `store: false`; the calls it ended on are indexed either way, so their outputs
   * still reach the job that waits for them.
   */
  hold(response: HeldResponse, items: readonly InputItem[], stored = true): void {
    if (stored) this.responses.set(response.id, response);
    for (const item of items) {
      if (stored && typeof item.id === 'string') this.items.set(item.id, item);
      const callId = callIdOf(item);
      if (response.waiting !== undefined && callId !== undefined) this.calls.set(callId, response.waiting);
    }
  }

  forget(response: HeldResponse, items: readonly InputItem[]): void {
    this.responses.delete(response.id);
    for (const item of items) {
      if (typeof item.id === 'string') this.items.delete(item.id);
      const callId = callIdOf(item);
      if (callId !== undefined && this.calls.get(callId) === response.waiting) this.calls.delete(callId);
    }
  }
}

const callIdOf = (item: InputItem): string | undefined =>
  item.type === 'function_call' && typeof item.call_id === 'string' ? item.call_id : undefined;

import type { ChatMessage } from '../../protocol/wire.js';
import type { InputItem } from './input.js';

/** A response the server holds: its thread so far, and the model it is locked to. */
export interface HeldResponse {
  id: string;
  model: string;
  /** Every message of the thread up to and including this response's output. */
  thread: ChatMessage[];
}

/**
 * Server-held threads of the Responses API: `previous_response_id` continues one, and the
 * output items of every response can be named again by `item_reference`. Kept for the same
 * history TTL as jobs.
 */
export class ResponseStore {
  private readonly responses = new Map<string, HeldResponse>();
  private readonly items = new Map<string, InputItem>();

  get(id: string): HeldResponse | undefined {
    return this.responses.get(id);
  }

  item(id: string): InputItem | undefined {
    return this.items.get(id);
  }

  hold(response: HeldResponse, items: readonly InputItem[]): void {
    this.responses.set(response.id, response);
    for (const item of items) if (typeof item.id === 'string') this.items.set(item.id, item);
  }

  forget(response: HeldResponse, items: readonly InputItem[]): void {
    this.responses.delete(response.id);
    for (const item of items) if (typeof item.id === 'string') this.items.delete(item.id);
  }
}

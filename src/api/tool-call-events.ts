import type { StreamEvent } from '../events/events.js';

export type ToolCallEventName = 'tool_call_pending' | 'tool_call_responded' | 'tool_call_expired';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The native tool-call events (`tool_call_pending`, `tool_call_responded`, `tool_call_expired`)
 * as stream events. One decoder for every stream that carries them: the named-event stream
 * (event name + data) and the compat-shaped stream's `nsed_tool_call_*` deltas. A payload
 * without a call id is dropped: nothing could answer or match it.
 */
export function toolCallEventOf(name: ToolCallEventName, data: unknown, index: number): StreamEvent | undefined {
  if (!isRecord(data) || typeof data['call_id'] !== 'string' || data['call_id'] === '') return undefined;
  const id = data['call_id'];
  const toolName = declaredToolName(typeof data['tool_name'] === 'string' ? data['tool_name'] : '');
  switch (name) {
    case 'tool_call_pending': {
      const args = isRecord(data['arguments']) ? data['arguments'] : {};
      return { type: 'tool-call', id, name: toolName, arguments: JSON.stringify(args), index, live: true };
    }
    case 'tool_call_responded': {
      const content = typeof data['result'] === 'string' ? data['result'] : '';
      return {
        type: 'tool-result',
        id,
        name: toolName,
        content,
        exit_code: null,
        status: 'answered',
        duration_ms: null,
        index,
      };
    }
    case 'tool_call_expired':
      return {
        type: 'tool-result',
        id,
        name: toolName,
        content: '',
        exit_code: null,
        status: 'expired',
        duration_ms: null,
        index,
      };
  }
}

/**
 * The name a tool was declared with. These events carry the name the agent saw, the declared
 * name behind a `user_` prefix (docs/protocol.md §10); output, NDJSON, the store and exports
 * show the declared name, as the compat path does, so one filter works on both paths.
 */
export function declaredToolName(wireName: string): string {
  return wireName.startsWith('user_') && wireName.length > 5 ? wireName.slice(5) : wireName;
}

/** The delta fields of a compat-shaped stream that carry the same events. */
export const TOOL_CALL_DELTAS: ReadonlyArray<[string, ToolCallEventName]> = [
  ['nsed_tool_call_pending', 'tool_call_pending'],
  ['nsed_tool_call_responded', 'tool_call_responded'],
  ['nsed_tool_call_expired', 'tool_call_expired'],
];

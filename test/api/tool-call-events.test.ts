import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/events/events.js';
import { createChunkDecoder } from '../../src/api/decode-chunk.js';
import { toolCallEventOf } from '../../src/api/tool-call-events.js';

describe('native tool-call events', () => {
  it('decodes pending, responded and expired the same from a named event or an nsed_tool_call_* delta', () => {
    const pending = {
      call_id: 'c1',
      agent_id: 'A',
      tool_name: 'user_calc',
      arguments: { expr: '2+2' },
      round: 1,
      phase: 'Proposing',
    };
    expect(toolCallEventOf('tool_call_pending', pending, 3)).toEqual({
      type: 'tool-call',
      id: 'c1',
      // The declared name: the agent saw it behind a `user_` prefix.
      name: 'calc',
      arguments: '{"expr":"2+2"}',
      index: 3,
      live: true,
    });
    expect(
      toolCallEventOf('tool_call_responded', { call_id: 'c1', tool_name: 'user_calc', result: '4' }, 4),
    ).toMatchObject({ type: 'tool-result', name: 'calc', status: 'answered', content: '4', exit_code: null });
    // Only the one prefix the orchestrator adds is dropped: a tool declared as user_x stays user_x.
    expect(toolCallEventOf('tool_call_pending', { ...pending, tool_name: 'user_user_x' }, 1)).toMatchObject({
      name: 'user_x',
    });
    expect(toolCallEventOf('tool_call_expired', { call_id: 'c1' }, 5)).toMatchObject({
      type: 'tool-result',
      status: 'expired',
      content: '',
    });
    expect(toolCallEventOf('tool_call_pending', { agent_id: 'A' }, 1)).toBeUndefined();

    const decoder = createChunkDecoder(undefined);
    const out: StreamEvent[] = [];
    decoder.decode(
      { choices: [{ index: 0, delta: { nsed_tool_call_pending: pending }, finish_reason: null }] },
      3,
      out,
    );
    decoder.decode(
      { choices: [{ index: 0, delta: { nsed_tool_call_expired: { call_id: 'c1' } }, finish_reason: null }] },
      5,
      out,
    );
    expect(out).toEqual([
      toolCallEventOf('tool_call_pending', pending, 3),
      toolCallEventOf('tool_call_expired', { call_id: 'c1' }, 5),
    ]);
  });
});
